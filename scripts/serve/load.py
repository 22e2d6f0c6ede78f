#!/usr/bin/env python3
"""A load run against a running `locallm serve`: CLIENTS concurrent streaming clients, each sending
REQUESTS requests one after another, with the official `openai` client.

Every prompt is distinct, and its greedy answer is first fetched alone (not streamed); under load
each streamed answer must equal it exactly, so a lost, truncated or mixed-up response fails the run.
Every request carries a `seed`, which asks the server for a repeatable answer: it evaluates the prompt
from an empty cache rather than reusing a prefix another request left (computed in other passes, so
different in the last bits). Decode steps shared with other requests compute exactly what a lone step
computes, so the answers under load must be the solo answers token for token.
It also checks that the server's memory (VmRSS of SERVER_PID) returns to its baseline, and prints
requests/s and time to first token. Usage: load.py BASE_URL API_KEY MODEL SERVER_PID CLIENTS REQUESTS"""
import asyncio
import statistics
import sys
import time

import openai

BASE, KEY, MODEL, PID = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
CLIENTS, REQUESTS = int(sys.argv[5]), int(sys.argv[6])
MAX_TOKENS = 24
SEED = 7
SUBJECTS = ["rivers", "bread", "owls", "trains", "copper", "tea", "maps", "bees"]


def rss_mib():
    with open(f"/proc/{PID}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def prompt(client, request):
    return [{"role": "user", "content": f"Client {client}, request {request}: write one sentence about {SUBJECTS[(client + request) % len(SUBJECTS)]}."}]


async def main():
    api = openai.AsyncOpenAI(base_url=BASE, api_key=KEY, max_retries=0, timeout=1800)
    # Warm up every sequence, then take the baseline.
    await asyncio.gather(*[api.chat.completions.create(model=MODEL, messages=prompt(99, i), max_tokens=4, temperature=0) for i in range(8)])
    baseline = rss_mib()
    # The expected answers, one request at a time.
    expected = {}
    for c in range(CLIENTS):
        for r in range(REQUESTS):
            answer = await api.chat.completions.create(model=MODEL, messages=prompt(c, r), max_tokens=MAX_TOKENS, temperature=0, seed=SEED)
            expected[(c, r)] = answer.choices[0].message.content
    ttfts, failures = [], []

    async def one_client(c):
        for r in range(REQUESTS):
            sent = time.perf_counter()
            first = None
            text = ""
            finish = None
            stream = await api.chat.completions.create(
                model=MODEL, messages=prompt(c, r), max_tokens=MAX_TOKENS, temperature=0, seed=SEED, stream=True)
            async for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    first = first or time.perf_counter()
                    text += chunk.choices[0].delta.content
                if chunk.choices and chunk.choices[0].finish_reason:
                    finish = chunk.choices[0].finish_reason
            ttfts.append((first or time.perf_counter()) - sent)
            if text != expected[(c, r)] or finish is None:
                failures.append((c, r, text, expected[(c, r)], finish))

    started = time.perf_counter()
    await asyncio.gather(*[one_client(c) for c in range(CLIENTS)])
    elapsed = time.perf_counter() - started
    peak = rss_mib()
    await asyncio.sleep(1)
    after = rss_mib()
    total = CLIENTS * REQUESTS
    ttfts.sort()
    print(f"{CLIENTS} clients x {REQUESTS} requests = {total} streamed requests in {elapsed:.1f}s: {total / elapsed:.2f} requests/s")
    print(f"time to first token: median {statistics.median(ttfts):.2f}s, p90 {ttfts[int(0.9 * (len(ttfts) - 1))]:.2f}s, max {ttfts[-1]:.2f}s")
    print(f"server RSS: baseline {baseline:.0f} MiB, end of load {peak:.0f} MiB, after {after:.0f} MiB")
    print(f"responses equal to their solo answer: {total - len(failures)}/{total}")
    for failure in failures[:5]:
        print("MISMATCH", failure)
    ok = not failures and len(ttfts) == total and after <= baseline * 1.10 + 16
    print("load run:", "ok" if ok else "FAILED")
    sys.exit(0 if ok else 1)


asyncio.run(main())
