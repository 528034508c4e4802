package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/moltgate/moltgate/conformance"
)

// A test organisation is made once; its peer document goes to the operator
// of the gateway under test, who imports it (moltgate peer import).
func ExampleInit() {
	dir, _ := os.MkdirTemp("", "conformance")
	defer os.RemoveAll(dir)
	doc, err := conformance.Init(filepath.Join(dir, "suite"), conformance.InitOptions{Org: "conformance"})
	if err != nil {
		fmt.Println(err)
		return
	}
	var d struct{ Type, Org, Endpoint string }
	json.Unmarshal(doc, &d)
	fmt.Println(d.Type, d.Org, d.Endpoint)
	// Output: moltgate.peer.v1 conformance http://127.0.0.1:9
}

// Run plays the test organisation against the gateway whose peer document
// it is given, and reports each case.
func ExampleRun() {
	gatewayDoc, err := os.ReadFile("gateway.json") // moltgate peer export of the gateway under test
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := conformance.Run(context.Background(), conformance.Config{Dir: "suite", PeerDoc: gatewayDoc, Agent: "echo"})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep.WriteText(os.Stdout)
	if !rep.OK() {
		os.Exit(1)
	}
}
