package pii_test

import (
	"fmt"

	"github.com/moltgate/moltgate/pii"
)

func ExampleScanner_ScanText() {
	s, err := pii.New(nil)
	if err != nil {
		panic(err)
	}
	for _, f := range s.ScanText("Reach me at ana@example.org, card 4111 1111 1111 1111.") {
		fmt.Println(f.Type, f.Start, f.End, f.Type.Meta())
	}
	// Output:
	// email 12 27 email
	// card 34 53 financial
}

func ExampleScanner_ScanJSON() {
	s, _ := pii.New(nil)
	payload := []byte(`{"input":{"note":"see attached","contact":{"phone":"+44 20 7946 0958"},"api_key":"sk_live_4eC39HqLyjWDarjtT1zdp7dc"}}`)
	findings, err := s.ScanJSON("p", payload)
	if err != nil {
		panic(err)
	}
	for _, f := range findings {
		fmt.Println(f.Path, f.Type, f.Type.Class())
	}
	sum := pii.Summarize(findings)
	fmt.Println("pii types:", sum.Types, "secret:", sum.Secret)
	// Output:
	// p.input.contact.phone phone pii
	// p.input.api_key api_token sec
	// pii types: [phone] secret: true
}

func ExampleFinding_String() {
	s, _ := pii.New(nil)
	f := s.ScanText("SSN 078-05-1123")[0]
	fmt.Println(f) // the value itself is never part of a Finding
	// Output: ssn[4:15] 0.97 ssn.ssa
}
