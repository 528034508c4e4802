package conformance


func identityCases() []testCase   { return nil }
func replayCases() []testCase     { return nil }
func senderCases() []testCase     { return nil }
func dataCases() []testCase       { return nil }
func inputCases() []testCase      { return nil }
