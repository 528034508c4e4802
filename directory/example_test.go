package directory_test

import (
	"fmt"

	"github.com/moltgate/moltgate/directory"
)

func ExampleParseRequirements() {
	req, err := directory.ParseRequirements([]byte(`{
		"timezone_support": true,
		"languages": ["en"],
		"max_attendees": {"gte": 50}
	}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(req.Match([]byte(`{"timezone_support": true, "languages": ["en", "de"], "max_attendees": 100}`)))
	fmt.Println(req.Match([]byte(`{"timezone_support": true, "languages": ["ja"], "max_attendees": 100}`)))
	// Output:
	// true
	// false
}

func ExampleViewer_Sees() {
	partnersOnly := &directory.Entry{Org: "acme", Visibility: directory.Public, AllowedOrgs: []string{"globex"}}
	fmt.Println(directory.Viewer{Org: "globex"}.Sees(partnersOnly))
	fmt.Println(directory.Viewer{Org: "initech"}.Sees(partnersOnly))
	fmt.Println(directory.Viewer{}.Sees(partnersOnly))
	// Output:
	// true
	// false
	// false
}
