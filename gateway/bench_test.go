package gateway

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/limit"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/internal/benchcpu"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// The pipeline's cost end to end, in one process: acme's gateway sends a
// tool call with a 1 KiB text to globex's echo agent over each transport
// (TLS on, as by default), and the reply comes back; both gateways, the
// echo agent (connected through the real OpenSentience socket) and the
// caller run here, so CPU time per round trip is everything but the
// JSON-RPC face and process boundaries (moltgate bench measures those).
//
// A round trip carries two signed, sealed messages: each signed once by one
// gateway and verified once by the other. The yardstick, measured in the
// same run, is two raw Ed25519 sign+verify of the request's own signing
// bytes; "raw/rt" is the yardstick's CPU time over the round trip's, the
// share of the round trip that the unavoidable public-key work would take.
//
//	go test ./gateway -run '^$' -bench CrossOrg -benchtime 2s

func benchText(n int) string {
	const s = "The morning build ran its tests while the team reviewed the plan for the next release. "
	return strings.Repeat(s, n/len(s)+1)[:n]
}

// benchPair starts two gateways trusting each other with an echo agent at
// globex, and returns a round trip and the yardstick: two raw Ed25519
// sign+verify of the signing bytes of a request like the round trip's.
func benchPair(b *testing.B, transport string) (rt func(), raw func(), signed int) {
	b.Helper()
	da, la := newTestDir(b, "acme", AddAgentOptions{ID: "client", MaxCls: "conf"})
	db, lb := newTestDir(b, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, MaxCls: "conf"})
	trustEachOther(b, da, db, "conf")
	acme := start(b, da, la, transport)
	globex := start(b, db, lb, transport)
	for _, s := range []*Server{acme.s, globex.s} {
		s.pipe.OrgLimit = limit.NewBuckets(1e9, 1<<30, 16, time.Now)
		s.pipe.AgentLimit = limit.NewBuckets(1e9, 1<<30, 16, time.Now)
	}
	input, _ := json.Marshal(map[string]string{"text": benchText(1024)})
	req := localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: input, Class: "conf"}
	ctx := context.Background()
	rt = func() {
		if _, err := acme.s.local.Query(ctx, req, nil); err != nil {
			b.Fatal(err)
		}
	}
	rt() // the handshake

	// The request as Query builds it, signed, for the yardstick.
	st := acme.s.roster.Agent("client")
	in, _ := wire.Parse(input, 0)
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(acme.s.rand), TS: time.Now().UnixMilli(), Op: wire.OpTool,
		From: st.Identity.Sender(), To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Conf, Exp: time.Now().Add(time.Minute).UnixMilli(),
		Payload: &wire.ToolPayload{Action: "invoke", Tool: "echo", Input: in}, Cap: []string{"tool.invoke"}, Ext: localAgent(st).CapabilityExt()}
	body, err := crypto.Sign(acme.s.codec, m, st.Identity.Signing)
	if err != nil {
		b.Fatal(err)
	}
	msg, err := m.AppendSigningBytes(nil)
	if err != nil {
		b.Fatal(err)
	}
	sk := st.Identity.Signing.Std()
	pk := sk.Public().(ed25519.PublicKey)
	raw = func() {
		for range 2 {
			if !ed25519.Verify(pk, msg, ed25519.Sign(sk, msg)) {
				b.Fatal("verify")
			}
		}
	}
	return rt, raw, len(body)
}

// BenchmarkCrossOrgRoundTrip alternates one round trip and the yardstick,
// one caller at a time: the latency path.
func BenchmarkCrossOrgRoundTrip(b *testing.B) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC, TransportHTTP} {
		b.Run(tr, func(b *testing.B) {
			rt, raw, n := benchPair(b, tr)
			var trt, traw time.Duration
			for b.Loop() {
				t0 := benchcpu.Now()
				rt()
				t1 := benchcpu.Now()
				raw()
				traw += benchcpu.Now() - t1
				trt += t1 - t0
			}
			b.ReportMetric(float64(trt)/float64(b.N), "cpu-ns/rt")
			b.ReportMetric(float64(traw)/float64(b.N), "cpu-ns/raw")
			b.ReportMetric(float64(traw)/float64(trt), "raw/rt")
			b.ReportMetric(float64(n), "request-bytes")
		})
	}
}

// BenchmarkCrossOrgParallel runs round trips from 16 callers at once per
// core, as a loaded gateway does, between two measurements of the
// yardstick.
func BenchmarkCrossOrgParallel(b *testing.B) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC, TransportHTTP} {
		b.Run(tr, func(b *testing.B) {
			rt, raw, _ := benchPair(b, tr)
			yard := func() time.Duration {
				t0 := benchcpu.Now()
				for range 200 {
					raw()
				}
				return (benchcpu.Now() - t0) / 200
			}
			y0 := yard()
			b.SetParallelism(16)
			b.ResetTimer()
			t0 := benchcpu.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rt()
				}
			})
			cpu := benchcpu.Now() - t0
			b.StopTimer()
			y := (y0 + yard()) / 2
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/rt")
			b.ReportMetric(float64(y), "cpu-ns/raw")
			b.ReportMetric(float64(y)*float64(b.N)/float64(cpu), "raw/rt")
		})
	}
}
