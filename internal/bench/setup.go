package bench

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/moltgate/moltgate/gateway"
)

// setUp makes the two gateway directories: globex with the echo agent
// (launched by its gateway), acme with the agent its caller sends as; each
// trusts the other up to conf; the rate limits are out of the way.
func (b *bench) setUp() error {
	b.acme, b.globex = gateway.Dir(filepath.Join(b.root, "acme")), gateway.Dir(filepath.Join(b.root, "globex"))
	// idle is a third organisation, trusted by globex, whose sessions
	// are left idle for the memory measurement; its gateway never runs.
	b.idle = gateway.Dir(filepath.Join(b.root, "idle"))
	for _, d := range []struct {
		dir gateway.Dir
		org string
	}{{b.acme, "acme"}, {b.globex, "globex"}, {b.idle, "idle"}} {
		ports, err := freePorts(2)
		if err != nil {
			return err
		}
		if _, err := gateway.Init(d.dir, gateway.InitOptions{Org: d.org, Listen: ports[0], GRPC: ports[1]}); err != nil {
			return err
		}
		if err := editConfig(d.dir,
			[2]string{"peer_org_per_second = 200.0", "peer_org_per_second = 1000000.0"},
			[2]string{"peer_org_burst = 400", "peer_org_burst = 1000000"},
			[2]string{"agent_per_second = 50.0", "agent_per_second = 1000000.0"},
			[2]string{"agent_burst = 100", "agent_burst = 1000000"},
			[2]string{"peer_concurrency = 64", "peer_concurrency = 4096"},
			// The bench's callers are one program on the local socket: the
			// IPC protocol's per-connection limits would measure themselves.
			[2]string{"local_queries = 3", "local_queries = 10000"},
			[2]string{"local_requests_per_second = 100", "local_requests_per_second = -1"},
		); err != nil {
			return err
		}
		if err := editConfig(d.dir, observeSettings(b.o.Observe)...); err != nil {
			return err
		}
	}
	agentCmd := shellQuote(b.exe) + " bench agent"
	if b.o.Profile != "" {
		agentCmd += " --cpuprofile " + shellQuote(b.profile("agent"))
	}
	if _, err := gateway.AddAgent(b.globex, gateway.AddAgentOptions{ID: "echo", Exec: agentCmd, Capabilities: []string{"echo.text"}}); err != nil {
		return err
	}
	if _, err := gateway.AddAgent(b.acme, gateway.AddAgentOptions{ID: "client"}); err != nil {
		return err
	}
	for _, p := range [][2]gateway.Dir{{b.acme, b.globex}, {b.globex, b.acme}, {b.globex, b.idle}} {
		doc, err := gateway.ExportPeer(p[1], nil, b.now())
		if err != nil {
			return err
		}
		if _, err := gateway.ImportPeer(p[0], doc, gateway.ImportOptions{MaxCls: "conf"}); err != nil {
			return err
		}
		if p[1] == b.globex {
			if b.globexDoc, err = gateway.ParsePeerDoc(doc); err != nil {
				return err
			}
		}
	}
	if b.o.Profile != "" {
		return os.MkdirAll(b.o.Profile, 0o755)
	}
	return nil
}

// observeSettings are the configuration lines Options.Observe changes.
func observeSettings(o string) [][2]string {
	switch o {
	case ObserveOff:
		return [][2]string{{"success_sample = 1.0", "success_sample = 0.0"}}
	case ObserveAll:
		return [][2]string{{`decisions = "blocked"`, `decisions = "all"`}, {"receipts = false", "receipts = true"}}
	case ObserveTrace:
		return [][2]string{{`exporter = "none"`, `exporter = "file"`}, {`# path = "data/spans.jsonl"`, `path = "data/spans.jsonl"`},
			{`# sample_ratio = 1.0`, `sample_ratio = 1.0`}}
	}
	return nil
}

// editConfig replaces settings in a gateway's moltgate.toml, each given as
// the whole line the file has and the line to put instead.
func editConfig(d gateway.Dir, lines ...[2]string) error {
	path := d.ConfigPath()
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(b)
	for _, l := range lines {
		if !strings.Contains(text, l[0]+"\n") {
			return fmt.Errorf("%s has no line %q", path, l[0])
		}
		text = strings.Replace(text, l[0]+"\n", l[1]+"\n", 1)
	}
	return os.WriteFile(path, []byte(text), 0o600)
}

// shellQuote quotes s for gateway.SplitCommand.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// freePorts returns n loopback addresses that were free a moment ago.
func freePorts(n int) ([]string, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().String())
	}
	return out, nil
}
