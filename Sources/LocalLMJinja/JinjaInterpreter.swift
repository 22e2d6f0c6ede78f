import Foundation

/// Limits and environment of one render.
public struct JinjaRenderOptions: Sendable {
    /// The clock `strftime_now` reads (Hugging Face uses the local time of `datetime.now()`).
    public var now: @Sendable () -> Date
    /// Time zone `strftime_now` formats in.
    public var timeZone: TimeZone
    /// Largest output (and largest intermediate string) in UTF-8 bytes.
    public var maxOutputBytes: Int
    /// Deepest macro/caller recursion.
    public var maxCallDepth: Int
    /// Most loop iterations plus macro calls in one render, so a hostile template cannot hang.
    public var maxSteps: Int

    public init(
        now: @escaping @Sendable () -> Date = { Date() },
        timeZone: TimeZone = .current,
        maxOutputBytes: Int = 16 << 20,
        maxCallDepth: Int = 100,
        maxSteps: Int = 5_000_000
    ) {
        self.now = now
        self.timeZone = timeZone
        self.maxOutputBytes = maxOutputBytes
        self.maxCallDepth = maxCallDepth
        self.maxSteps = maxSteps
    }
}

/// A variable scope. Loops, macros, call/filter/set blocks open child frames as jinja2 does;
/// `if` does not. Frames live only inside one render call on one thread (unchecked Sendable so
/// macros, which close over their defining frame, can be values).
final class JinjaFrame: @unchecked Sendable {
    var variables: [String: JinjaValue] = [:]
    let parent: JinjaFrame?

    init(parent: JinjaFrame?) { self.parent = parent }

    func lookup(_ name: String) -> JinjaValue? {
        var frame: JinjaFrame? = self
        while let f = frame {
            if let v = f.variables[name] { return v }
            frame = f.parent
        }
        return nil
    }
}

/// Executes a parsed template. One instance per render call: it holds the per-call counters.
final class JinjaInterpreter {
    let options: JinjaRenderOptions
    /// Line of the expression being evaluated, for error messages.
    var line = 0
    var callDepth = 0
    var steps = 0

    enum Flow { case normal, breakLoop, continueLoop }

    init(options: JinjaRenderOptions) { self.options = options }

    func fail(_ kind: JinjaError.Kind, _ message: String) -> JinjaError {
        JinjaError(kind, message, line: line)
    }

    func step() throws(JinjaError) {
        steps += 1
        if steps > options.maxSteps { throw fail(.limit, "template ran more than \(options.maxSteps) loop iterations and calls") }
    }

    func checkSize(_ s: String) throws(JinjaError) {
        if s.utf8.count > options.maxOutputBytes { throw fail(.limit, "output larger than \(options.maxOutputBytes) bytes") }
    }

    func render(_ nodes: [JinjaNode], globals: JinjaFrame) throws(JinjaError) -> String {
        let frame = JinjaFrame(parent: globals)
        var out = ""
        _ = try exec(nodes, frame, &out)
        return out
    }

    func exec(_ nodes: [JinjaNode], _ frame: JinjaFrame, _ out: inout String) throws(JinjaError) -> Flow {
        for node in nodes {
            switch node {
            case .text(let t):
                out += t
                try checkSize(out)
            case .output(let e):
                out += try str(eval(e, frame))
                try checkSize(out)
            case .ifChain(let branches, let otherwise):
                var taken = false
                for (condition, body) in branches where try eval(condition, frame).isTruthy {
                    taken = true
                    let flow = try exec(body, frame, &out)
                    if flow != .normal { return flow }
                    break
                }
                if !taken {
                    let flow = try exec(otherwise, frame, &out)
                    if flow != .normal { return flow }
                }
            case .forLoop(let loop):
                try execFor(loop, frame, &out)
            case .set(let target, let value, let line):
                self.line = line
                try assign(target, try eval(value, frame), frame)
            case .setBlock(let target, let filters, let body, let line):
                var text = ""
                _ = try exec(body, JinjaFrame(parent: frame), &text)
                var value = JinjaValue.string(text)
                for f in filters { value = try applyFilter(f, to: value, frame) }
                self.line = line
                try assign(target, value, frame)
            case .macro(let macro):
                frame.variables[macro.name] = .callable(makeMacro(macro, frame))
            case .callBlock(let call, let parameters, let body, let line):
                self.line = line
                guard case .call(let callee, var arguments, let callLine) = call else { break }
                let caller = makeMacro(JinjaMacro(name: "caller", parameters: parameters, body: body, line: line), frame)
                arguments.keywords.append(("caller", .literal(.callable(caller))))
                out += try str(eval(.call(callee, arguments, line: callLine), frame))
                try checkSize(out)
            case .filterBlock(let filters, let body):
                var text = ""
                _ = try exec(body, JinjaFrame(parent: frame), &text)
                var value = JinjaValue.string(text)
                for f in filters { value = try applyFilter(f, to: value, frame) }
                out += try str(value)
                try checkSize(out)
            case .with(let assignments, let body):
                let inner = JinjaFrame(parent: frame)
                for (target, e) in assignments { try assign(target, try eval(e, frame), inner) }
                let flow = try exec(body, inner, &out)
                if flow != .normal { return flow }
            case .breakLoop:
                return .breakLoop
            case .continueLoop:
                return .continueLoop
            }
        }
        return .normal
    }

    func execFor(_ loop: JinjaFor, _ frame: JinjaFrame, _ out: inout String) throws(JinjaError) {
        self.line = loop.line
        let iterable = try eval(loop.iterable, frame)
        var items = try iterate(iterable)
        if let condition = loop.condition {
            var kept: [JinjaValue] = []
            for item in items {
                try step()
                let f = JinjaFrame(parent: frame)
                try assign(loop.target, item, f)
                if try eval(condition, f).isTruthy { kept.append(item) }
            }
            items = kept
        }
        if items.isEmpty {
            _ = try exec(loop.otherwise, frame, &out)
            return
        }
        // A fresh frame per iteration: jinja2 does not carry names set in one iteration to the next.
        for (i, item) in items.enumerated() {
            try step()
            let f = JinjaFrame(parent: frame)
            f.variables["loop"] = loopObject(index: i, items: items)
            self.line = loop.line
            try assign(loop.target, item, f)
            let flow = try exec(loop.body, f, &out)
            if flow == .breakLoop { break }
        }
    }

    /// The `loop` variable: index, index0, revindex, revindex0, first, last, length, previtem,
    /// nextitem, depth, depth0 and `cycle(...)`.
    func loopObject(index i: Int, items: [JinjaValue]) -> JinjaValue {
        let n = items.count
        var o = JinjaObject()
        o["index"] = .int(i + 1)
        o["index0"] = .int(i)
        o["revindex"] = .int(n - i)
        o["revindex0"] = .int(n - i - 1)
        o["first"] = .bool(i == 0)
        o["last"] = .bool(i == n - 1)
        o["length"] = .int(n)
        o["depth"] = .int(1)
        o["depth0"] = .int(0)
        o["previtem"] = i > 0 ? items[i - 1] : .undefined("there is no previous item")
        o["nextitem"] = i + 1 < n ? items[i + 1] : .undefined("there is no next item")
        o["cycle"] = .callable(JinjaCallable(name: "cycle") { call throws(JinjaError) in
            guard !call.positional.isEmpty else {
                throw JinjaError(.type, "no items for cycling given", line: call.line)
            }
            return call.positional[i % call.positional.count]
        })
        return .object(o)
    }

    func assign(_ target: JinjaTarget, _ value: JinjaValue, _ frame: JinjaFrame) throws(JinjaError) {
        switch target {
        case .name(let n):
            frame.variables[n] = value
        case .attribute(let object, let name):
            guard case .namespace(let ns) = frame.lookup(object) ?? .none else {
                throw fail(.type, "cannot assign attribute on non-namespace object")
            }
            ns.attributes[name] = value
        case .tuple(let targets):
            let items = try iterate(value)
            guard items.count == targets.count else {
                throw fail(.type, items.count > targets.count
                    ? "too many values to unpack (expected \(targets.count))"
                    : "not enough values to unpack (expected \(targets.count), got \(items.count))")
            }
            for (t, v) in zip(targets, items) { try assign(t, v, frame) }
        }
    }

    func makeMacro(_ macro: JinjaMacro, _ defining: JinjaFrame) -> JinjaCallable {
        JinjaCallable(name: macro.name) { call throws(JinjaError) in
            try call.interpreter.invoke(macro, defining, call)
        }
    }

    func invoke(_ macro: JinjaMacro, _ defining: JinjaFrame, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        try step()
        callDepth += 1
        defer { callDepth -= 1 }
        if callDepth > options.maxCallDepth {
            throw fail(.limit, "macro recursion deeper than \(options.maxCallDepth)")
        }
        let f = JinjaFrame(parent: defining)
        var keywords = call.keywords
        var extra: [JinjaValue] = []
        for (i, value) in call.positional.enumerated() {
            if i < macro.parameters.count { f.variables[macro.parameters[i].name] = value } else { extra.append(value) }
        }
        for p in macro.parameters where f.variables[p.name] == nil {
            if let k = keywords.firstIndex(where: { $0.0 == p.name }) {
                f.variables[p.name] = keywords[k].1
                keywords.remove(at: k)
            } else if let d = p.defaultValue {
                f.variables[p.name] = try eval(d, f)
            } else {
                f.variables[p.name] = .missing(p.name)
            }
        }
        if let k = keywords.firstIndex(where: { $0.0 == "caller" }) {
            f.variables["caller"] = keywords[k].1
            keywords.remove(at: k)
        }
        f.variables["varargs"] = .tuple(extra)
        f.variables["kwargs"] = .object(JinjaObject(keywords))
        var out = ""
        _ = try exec(macro.body, f, &out)
        return .string(out)
    }
}
