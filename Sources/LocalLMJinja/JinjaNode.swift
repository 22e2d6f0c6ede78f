/// The parsed template: statements (`JinjaNode`) holding expressions (`JinjaExpr`). Immutable and
/// Sendable, so one parsed `ChatTemplate` serves every session.
indirect enum JinjaNode: Sendable {
    case text(String)
    case output(JinjaExpr)
    case ifChain(branches: [(condition: JinjaExpr, body: [JinjaNode])], otherwise: [JinjaNode])
    case forLoop(JinjaFor)
    case set(target: JinjaTarget, value: JinjaExpr, line: Int)
    case setBlock(target: JinjaTarget, filters: [JinjaFilterCall], body: [JinjaNode], line: Int)
    case macro(JinjaMacro)
    case callBlock(call: JinjaExpr, callerParameters: [JinjaParameter], body: [JinjaNode], line: Int)
    case filterBlock(filters: [JinjaFilterCall], body: [JinjaNode])
    case with(assignments: [(JinjaTarget, JinjaExpr)], body: [JinjaNode])
    case breakLoop(line: Int)
    case continueLoop(line: Int)
}

struct JinjaFor: Sendable {
    let target: JinjaTarget
    let iterable: JinjaExpr
    let condition: JinjaExpr?
    let body: [JinjaNode]
    let otherwise: [JinjaNode]
    let line: Int
}

struct JinjaParameter: Sendable {
    let name: String
    let defaultValue: JinjaExpr?
}

struct JinjaMacro: Sendable {
    let name: String
    let parameters: [JinjaParameter]
    let body: [JinjaNode]
    let line: Int
}

/// Left side of `set`/`for`: a name, `ns.attr`, or a tuple of names.
indirect enum JinjaTarget: Sendable {
    case name(String)
    case attribute(object: String, name: String)
    case tuple([JinjaTarget])
}

struct JinjaFilterCall: Sendable {
    let name: String
    let arguments: JinjaArguments
    let line: Int
}

struct JinjaArguments: Sendable {
    var positional: [JinjaExpr] = []
    var keywords: [(String, JinjaExpr)] = []
}

indirect enum JinjaExpr: Sendable {
    case literal(JinjaValue)
    case name(String, line: Int)
    case list([JinjaExpr])
    case tuple([JinjaExpr])
    case dict([(JinjaExpr, JinjaExpr)])
    case attribute(JinjaExpr, String, line: Int)
    case item(JinjaExpr, JinjaExpr, line: Int)
    case slice(JinjaExpr, start: JinjaExpr?, stop: JinjaExpr?, step: JinjaExpr?, line: Int)
    case call(JinjaExpr, JinjaArguments, line: Int)
    case filter(JinjaExpr, JinjaFilterCall)
    /// `x is name(args)`; an unknown test name fails when evaluated, as in jinja2.
    case test(JinjaExpr, name: String, arguments: JinjaArguments, negated: Bool, line: Int)
    case not(JinjaExpr)
    case negate(JinjaExpr, line: Int)
    case plus(JinjaExpr, line: Int)
    case binary(String, JinjaExpr, JinjaExpr, line: Int)
    case and(JinjaExpr, JinjaExpr)
    case or(JinjaExpr, JinjaExpr)
    case conditional(then: JinjaExpr, condition: JinjaExpr, otherwise: JinjaExpr?)
}
