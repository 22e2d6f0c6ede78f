#!/usr/bin/env python3
"""Writes Tests/Fixtures/tokenizers/corpus.json: the strings the tokenizer conformance tests encode
with both real models (SmolLM2: GPT-2 BPE `smollm`; Gemma 3: SentencePiece 262k).

The corpus is deterministic (hand-written cases plus seeded combinations). It covers code, JSON,
emoji (ZWJ sequences, skin tones, flags), CJK, Korean, Thai, Arabic, Hindi, accented and combining
text, whitespace and newline runs, numbers, contractions, the special-token texts of both models,
and odd Unicode (noncharacters, private use, unassigned code points, controls, U+FFFD, BOM).

  python3 scripts/goldens/tokenizer_corpus.py        # then scripts/goldens/tokenizer_goldens.py
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "Tests", "Fixtures", "tokenizers", "corpus.json")

cases = [
    "", " ", "  ", "   ", "\t", "\n", "\n\n", "\n\n\n", " \n", "\n ", "\t\n \t", "\r\n", "\r\n\r\n", " \r\n ",
    "Hello", "Hello world", " Hello world", "Hello World!", "Hello, world!", "hello   world", "hello\tworld",
    "The quick brown fox jumps over the lazy dog.", "THE QUICK BROWN FOX", "tHe QuIcK bRoWn",
    "I'm sure you've seen it, haven't you? We'll see. He'd go. They're here.", "I'M SURE YOU'VE",
    "don't can't won't shouldn't", "'s 't 're 've 'm 'll 'd", "rock 'n' roll", "''", "'", "' '",
    "1", "12", "123", "1234", "12345", "123456", "1234567", "3.14159", "1,000,000", "-42", "+7e-10",
    "0x1F 0b1010 0o17", "2024-01-15T10:30:00Z", "phone: +1 (555) 123-4567", "99.9%", "$100.00", "€50", "¥1000",
    "١٢٣ ٤٥٦", "१२३", "一二三", "Ⅻ ⅻ ½ ¾ ²³", "𝟙𝟚𝟛",
    "def f(x):\n    return x * 2\n", "int main(void) {\n\tprintf(\"hi\\n\");\n\treturn 0;\n}\n",
    "for (let i = 0; i < 10; i++) { console.log(i); }", "if x == y and not z: pass",
    "    indented\n        more\n\tTabbed", "#include <stdio.h>", "import numpy as np\nnp.array([1, 2, 3])",
    "SELECT * FROM users WHERE id = 1;", "<div class=\"a\"><p>Hi</p></div>", "<html>\n<body>\n</body>\n</html>",
    "a->b && c || !d", "x += 1; y -= 2; z *= 3;", "fn main() -> Result<(), Box<dyn Error>> {}",
    "let s: &str = \"hello\";", "// comment\n/* block */", "```python\nprint('hi')\n```", "~/.bashrc && ls -la | grep foo",
    "https://example.com/path?q=1&r=2#frag", "user@example.com", "C:\\Users\\me\\file.txt",
    '{"name": "Alice", "age": 30, "tags": ["a", "b"]}', '{"a":{"b":{"c":[1,2,{"d":null}]}}}', "[]", "{}",
    '{"emoji": "😀", "cjk": "漢字", "escaped": "\\u00e9\\n"}', '[true, false, null, 1.5e10, -0]',
    "😀", "😀😀😀", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷🇯🇵", "❤️", "🦙.cpp", "this is 🦙.cpp", "🤖 robots 🤖",
    "你好，世界！", "日本語のテキストです。", "東京タワー", "한국어 텍스트입니다", "中文 English 混合 text",
    "这是一个测试。这是另一个测试。", "カタカナ ひらがな 漢字", "ｆｕｌｌｗｉｄｔｈ　ｓｐａｃｅ", "　",
    "Ελληνικά κείμενο", "Русский текст", "нещо на Български", "עברית", "العربية النص", "हिन्दी पाठ", "ภาษาไทย",
    "ქართული", "Հայերեն", "Tiếng Việt có dấu", "Ærøskøbing", "Straße", "naïve café résumé", "Äpfel",
    "e\u0301 a\u0300 o\u0308", "Z\u0351\u0350\u0338a\u0351\u0350lgo", "ﬁ ﬂ ﬀ", "İstanbul ıi", "Ǆ ǅ ǆ", "ß ẞ",
    "\u00a0non-breaking\u00a0space", "thin\u2009space", "zero\u200bwidth", "zwj\u200djoiner", "word\u2028line",
    "para\u2029graph", "nel\u0085line", "\u000bvertical\u000ctab", "\ufeffBOM", "\ufffd", "\ufffd\ufffd",
    "\ufffe\uffff", "\U0010ffff", "\ue000\uf8ff", "\U000e0001", "\u0378\u0379", "\U0001fbf0", "\x00", "\x01\x02\x1f",
    "\x7f", "\u0080\u009f", "\u200e\u200f", "\u2066isolate\u2069", "a\u0000b",
    "<|im_start|>", "<|im_end|>", "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n",
    "<|im_start|>system\nYou are helpful.<|im_end|>", "<|endoftext|>", "text<|endoftext|>more",
    "<|im_start|><|im_end|>", "<|im_start", "|im_start|>", "< |im_start| >", "<|IM_START|>",
    "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n", "<start_of_turn>", "<end_of_turn>",
    "<bos>", "<eos>", "<pad>", "<unk>", "<mask>", "<bos>Hello<eos>", "<s>", "</s>", "<s>Hello</s>",
    "[INST] hi [/INST]", "<start_of_image>", "<unused0>", "<unused99>", "<tab>", "<br>", "<h1>Title</h1>",
    "<table><tr><td>1</td></tr></table>", "<strong>bold</strong>", "<code>x</code>",
    "  <|im_start|>  ", "\n<|im_end|>\n", "<|im_end|><|im_end|>", "<start_of_turn><start_of_turn>",
    "a" * 100, "ab" * 60, " " * 50, "\n" * 20, "\t" * 10, " \n" * 15, "=" * 40, "-" * 80, "." * 30,
    "1" * 40, "😀" * 20, "漢" * 30, "\u3000" * 5, "  a  b  c  ", "word" + " " * 7 + "word",
    "\n\n\nTitle\n\n\nBody\n\n\n", "   leading", "trailing   ", "mixed \t \n \r spaces",
    "Hello\u3000World", "CamelCaseIdentifier", "snake_case_identifier", "SCREAMING_SNAKE", "kebab-case-id",
    "HTTPServerError", "iPhone iPad macOS", "x86_64-linux-gnu", "UTF-8 ASCII ISO-8859-1",
    "A.B.C.", "e.g., i.e., etc.", "Mr. Smith vs. Mrs. Jones", "...!!!???", "—–-‒―", "«quotes» “curly” ‘single’",
    "©®™℠", "±×÷≠≤≥∞∑∏√∫", "→←↑↓⇒⇔", "♠♣♥♦", "★☆✓✗", "§¶†‡•", "¿¡", "@#$%^&*()_+", "`~|\\/",
]

# Seeded combinations of pieces, for variety in spacing and punctuation between scripts.
pieces = ["hello", "World", "123", "4567", "😀", "漢字", "한국", "é", " ", "  ", "\n", "\t", ",", ".", "!",
          "'s", "<|im_start|>", "<start_of_turn>", "<|im_end|>", "{", "}", "\"key\"", ":", "-", "_", "()",
          "ñ", "Ж", "ي", "🦙", "\u0301", "<b>", "</b>", "\n\n", "    ", "x", "Y", "0", "1.5"]
rng = random.Random(1234)
while len(cases) < 330:
    n = rng.randint(2, 12)
    cases.append("".join(rng.choice(pieces) for _ in range(n)))

# A few longer mixed paragraphs.
cases += [
    "Large language models (LLMs) are trained on vast corpora. They predict the next token.\n\n"
    "In 2023, models like GPT-4 achieved 86.4% on MMLU; open models followed.",
    "def fibonacci(n: int) -> int:\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n"
    "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
    "日本の首都は東京です。人口は約1400万人で、世界最大級の都市圏を形成しています。",
    "Café au lait, crème brûlée, and piña colada — délicieux! 😋🍰🍹",
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
    "What's 2+2? Answer in JSON: {\"answer\": 4}<|im_end|>\n<|im_start|>assistant\n",
]

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w", encoding="utf-8") as f:
    json.dump(cases, f, ensure_ascii=True, indent=0)
    f.write("\n")
print(f"{len(cases)} strings -> {os.path.relpath(OUT)}")
