package events

import "testing"

// BenchmarkEmit is the cost a call pays for its call.completed event, with a console
// subscribed that keeps up.
func BenchmarkEmit(b *testing.B) {
	s := New(Config{Keep: 1024, Buffer: 1 << 20})
	sub, _ := s.Subscribe("")
	done := make(chan struct{})
	go func() {
		for range sub.C {
		}
		close(done)
	}()
	p := map[string]any{"id": "89359099-ced9-46f2-b0a9-41f8664234bc", "direction": "inbound", "from": "client@acme",
		"to": "greeter@globex", "tool": "greet", "status": "success", "duration_ms": 3}
	b.ReportAllocs()
	for b.Loop() {
		s.Emit(CallCompleted, p)
	}
	b.StopTimer()
	s.Close()
	<-done
}

// BenchmarkEmitUnwatched is what a call pays for its call.completed event
// when nobody subscribes, the gateway's usual case: the payload is kept,
// not encoded. The payload as in BenchmarkEmit, for the ratio.
func BenchmarkEmitUnwatched(b *testing.B) {
	s := New(Config{Keep: 1024})
	p := map[string]any{"id": "89359099-ced9-46f2-b0a9-41f8664234bc", "direction": "inbound", "from": "client@acme",
		"to": "greeter@globex", "tool": "greet", "status": "success", "duration_ms": 3}
	b.ReportAllocs()
	for b.Loop() {
		s.Emit(CallCompleted, p)
	}
}
