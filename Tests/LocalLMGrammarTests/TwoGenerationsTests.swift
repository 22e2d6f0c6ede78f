import Testing
@testable import LocalLMGrammar

/// The bounded maps behind shared entries and stored masks: what is used in every generation stays,
/// the rest goes after two generations, and at most two generations' bytes are held.
@Suite struct TwoGenerationsTests {
    @Test func keepsWhatIsUsedAndDropsTheRest() {
        var map = TwoGenerations<Int, String>(bytesPerGeneration: 30)
        let size: (String) -> Int = { _ in 10 }
        for k in 0..<3 { map.insert("v\(k)", for: k, bytes: 10) }   // generation 1: 0, 1, 2 (30 bytes)
        map.insert("v3", for: 3, bytes: 10)                            // full: 0…2 become the older
        #expect(map.count == 4)
        #expect(map.value(for: 1, bytes: size) == "v1")                // found in the older: moves to the newer
        #expect(map.count == 5 && map.distinctCount == 4)              // 1 is in both generations
        map.insert("v4", for: 4, bytes: 10)                            // newer: 3, 1, 4 (30 bytes)
        map.insert("v5", for: 5, bytes: 10)                            // full: the older (0, 2) is dropped
        #expect(map.value(for: 0, bytes: size) == nil)
        #expect(map.value(for: 2, bytes: size) == nil)
        #expect(map.value(for: 1, bytes: size) == "v1")
        #expect(map.value(for: 5, bytes: size) == "v5")
        #expect(map.count <= 6)
    }

    @Test func holdsAtMostTwoGenerations() {
        var map = TwoGenerations<Int, Int>(bytesPerGeneration: 100)
        for k in 0..<10_000 {
            map.insert(k, for: k, bytes: 7)
            #expect(map.count * 7 <= 200)
        }
        // The latest stores are all there.
        for k in 9_990..<10_000 { #expect(map.value(for: k) { _ in 7 } == k) }
    }
}
