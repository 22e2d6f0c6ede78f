import LocalLMMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

// What the expansion does at run time (a profile's counter) is tested in
// Tests/LocalLMTests/DynamicProfileTests.swift; these pin the generated source and diagnostics.

private let macros: [String: MacroSpec] = [
    "SessionPropertyEntry": MacroSpec(type: SessionPropertyEntryMacro.self)
]

final class SessionPropertyEntryMacroTests: XCTestCase {
    /// Apple's documented use: a counter with a default value.
    func testCounterWithDefault() {
        assertMacroExpansion(
            """
            extension SessionPropertyValues {
                @SessionPropertyEntry
                var toolCallCount: Int = 0
            }
            """,
            expandedSource: """
            extension SessionPropertyValues {
                var toolCallCount: Int {
                    get {
                        self[__Key_toolCallCount.self]
                    }
                    set {
                        self[__Key_toolCallCount.self] = newValue
                    }
                }

                private struct __Key_toolCallCount: SessionPropertyKey {
                    static var defaultValue: Int {
                        0
                    }
                }
            }
            """,
            macroSpecs: macros
        )
    }

    /// Optionals default to `nil`; access modifiers and non-literal defaults are kept.
    func testOptionalAndPublic() {
        assertMacroExpansion(
            """
            extension SessionPropertyValues {
                @SessionPropertyEntry public var lastCity: String?
                @SessionPropertyEntry var seen: [String] = ["a", "b"].map { $0.uppercased() }
            }
            """,
            expandedSource: """
            extension SessionPropertyValues {
                public var lastCity: String? {
                    get {
                        self[__Key_lastCity.self]
                    }
                    set {
                        self[__Key_lastCity.self] = newValue
                    }
                }

                private struct __Key_lastCity: SessionPropertyKey {
                    static var defaultValue: String? {
                        nil
                    }
                }
                var seen: [String] {
                    get {
                        self[__Key_seen.self]
                    }
                    set {
                        self[__Key_seen.self] = newValue
                    }
                }

                private struct __Key_seen: SessionPropertyKey {
                    static var defaultValue: [String] {
                        ["a", "b"].map {
                            $0.uppercased()
                        }
                    }
                }
            }
            """,
            macroSpecs: macros
        )
    }

    // (`var a = 0, b = 1` never reaches the macro: the compiler refuses attached macros on several bindings.)
    func testDiagnostics() {
        let cases: [(source: String, message: String, line: Int, column: Int)] = [
            ("@SessionPropertyEntry var count = 0", "session property 'count' needs an explicit type annotation", 1, 27),
            ("@SessionPropertyEntry var count: Int", "session property 'count' needs a default value, as in 'var count: Int = 0'", 1, 27),
            ("@SessionPropertyEntry let count: Int = 0", "@SessionPropertyEntry needs a 'var', because session properties are written as well as read", 1, 23),
            ("@SessionPropertyEntry static var count: Int = 0", "@SessionPropertyEntry applies to an instance property, not a static one", 1, 1),
            (
                "@SessionPropertyEntry var count: Int { 0 }",
                "@SessionPropertyEntry writes the accessors itself; remove the property's get/set or observers", 1, 27
            ),
        ]
        for testCase in cases {
            let expanded = expandedWithoutDiagnosticCheck(testCase.source)
            assertMacroExpansion(
                testCase.source,
                expandedSource: expanded,
                diagnostics: [DiagnosticSpec(message: testCase.message, line: testCase.line, column: testCase.column)],
                macroSpecs: macros
            )
        }
    }

    /// A refused declaration is left as written, minus the attribute.
    private func expandedWithoutDiagnosticCheck(_ source: String) -> String {
        source.replacingOccurrences(of: "@SessionPropertyEntry ", with: "")
    }
}
