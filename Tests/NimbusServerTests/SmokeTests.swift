import Testing

@Test("the test target builds") func builds() { #expect(1 + 1 == 2) }
