package peers_test

import (
	"fmt"

	"github.com/moltgate/moltgate/gateway/peers"
)

// The table finds a peer by its organisation; a message for an
// organisation that is not a peer fails with the way out.
func ExampleTable_For() {
	tab := peers.New(peers.Config{})
	if err := tab.Add(&peers.Peer{Org: "globex", Endpoint: "http://127.0.0.1:7443", GRPC: "127.0.0.1:7444"}); err != nil {
		panic(err)
	}
	ps, _ := tab.For("globex")
	fmt.Println(ps.Peer().Endpoint)
	_, err := tab.For("initech")
	fmt.Println(err)
	// Output:
	// http://127.0.0.1:7443
	// E_AGENT_NOT_FOUND: to.org: initech is not a peer of this gateway (import it with moltgate peer import)
}
