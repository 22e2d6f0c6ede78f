/// jinja2 rejects an unknown filter or test name when it compiles the template, except inside an
/// `if` statement or an inline `… if … else …`, where the error waits until (and unless) the
/// expression runs, so templates can guard optional filters. This pass applies the same rule to
/// a parsed template; the interpreter raises for the deferred ones.
enum JinjaNameCheck {
    static func check(_ nodes: [JinjaNode], soft: Bool = false) throws(JinjaError) {
        for node in nodes { try check(node, soft: soft) }
    }

    static func check(_ node: JinjaNode, soft: Bool) throws(JinjaError) {
        switch node {
        case .text, .breakLoop, .continueLoop:
            break
        case .macro(let m):
            // Macros, loops and blocks are inner frames: not soft even inside an `if`.
            for p in m.parameters { if let d = p.defaultValue { try check(d, soft: false) } }
            try check(m.body)
        case .output(let e):
            try check(e, soft: soft)
        case .ifChain(let branches, let otherwise):
            for (condition, body) in branches {
                try check(condition, soft: true)
                try check(body, soft: true)
            }
            try check(otherwise, soft: true)
        case .forLoop(let loop):
            try check(loop.iterable, soft: soft)
            if let c = loop.condition { try check(c, soft: false) }
            try check(loop.body)
            try check(loop.otherwise)
        case .set(_, let value, _):
            try check(value, soft: soft)
        case .setBlock(_, let filters, let body, _):
            try check(filters)
            try check(body)
        case .callBlock(let call, let parameters, let body, _):
            try check(call, soft: soft)
            for p in parameters { if let d = p.defaultValue { try check(d, soft: false) } }
            try check(body)
        case .filterBlock(let filters, let body):
            try check(filters)
            try check(body)
        case .with(let assignments, let body):
            for (_, e) in assignments { try check(e, soft: soft) }
            try check(body)
        }
    }

    static func check(_ filters: [JinjaFilterCall]) throws(JinjaError) {
        for f in filters { try checkFilter(f, soft: false) }
    }

    static func checkFilter(_ f: JinjaFilterCall, soft: Bool) throws(JinjaError) {
        if !soft, JinjaFilters.table[f.name] == nil {
            throw JinjaError(.unknownFilterOrTest, "no filter named '\(f.name)'", line: f.line)
        }
        try check(f.arguments, soft: soft)
    }

    static func check(_ a: JinjaArguments, soft: Bool) throws(JinjaError) {
        for e in a.positional { try check(e, soft: soft) }
        for (_, e) in a.keywords { try check(e, soft: soft) }
    }

    static func check(_ expr: JinjaExpr, soft: Bool) throws(JinjaError) {
        switch expr {
        case .literal, .name:
            break
        case .list(let items), .tuple(let items):
            for e in items { try check(e, soft: soft) }
        case .dict(let pairs):
            for (k, v) in pairs {
                try check(k, soft: soft)
                try check(v, soft: soft)
            }
        case .attribute(let e, _, _), .not(let e), .negate(let e, _), .plus(let e, _):
            try check(e, soft: soft)
        case .item(let e, let i, _):
            try check(e, soft: soft)
            try check(i, soft: soft)
        case .slice(let e, let a, let b, let c, _):
            try check(e, soft: soft)
            for x in [a, b, c] { if let x { try check(x, soft: soft) } }
        case .call(let e, let a, _):
            try check(e, soft: soft)
            try check(a, soft: soft)
        case .filter(let e, let f):
            try check(e, soft: soft)
            try checkFilter(f, soft: soft)
        case .test(let e, let name, let a, _, let line):
            if !soft, !JinjaTests.names.contains(name) {
                throw JinjaError(.unknownFilterOrTest, "no test named '\(name)'", line: line)
            }
            try check(e, soft: soft)
            try check(a, soft: soft)
        case .binary(_, let l, let r, _), .and(let l, let r), .or(let l, let r):
            try check(l, soft: soft)
            try check(r, soft: soft)
        case .conditional(let then, let condition, let otherwise):
            try check(then, soft: true)
            try check(condition, soft: true)
            if let otherwise { try check(otherwise, soft: true) }
        }
    }
}
