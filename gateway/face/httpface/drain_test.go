package httpface

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// drainServer answers every request 413 and drains its body as a refused
// message's is.
func drainServer(t *testing.T, drainTime time.Duration) string {
	t.Helper()
	f := &Face{cfg: Config{DrainBytes: 16 << 20, DrainTime: drainTime}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		io.WriteString(w, "too large\n")
		f.drain(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// A client that keeps sending, however slowly its machine lets it, is read
// to the end of its body and then reads the refusal, even when the whole
// body takes longer than DrainTime.
func TestDrainReadsAClientThatKeepsSending(t *testing.T) {
	const drainTime = 2 * time.Second
	c, err := net.Dial("tcp", drainServer(t, drainTime))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Minute)) // against a hang only
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
	chunk := bytes.Repeat([]byte("x"), drainStep)
	// Four steps, one every half of DrainTime: twice DrainTime in all.
	for i := range 4 {
		if i > 0 {
			time.Sleep(drainTime / 2)
		}
		if _, err := fmt.Fprintf(c, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
			t.Fatalf("step %d of the body: %v", i, err)
		}
	}
	if _, err := io.WriteString(c, "0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer after a body sent over twice DrainTime: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("answer %d", resp.StatusCode)
	}
}

// A client that stops sending is not waited for: the connection ends once
// DrainTime passes without a step of its body.
func TestDrainCutsOffAClientThatStalls(t *testing.T) {
	c, err := net.Dial("tcp", drainServer(t, 200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Minute)) // against a hang only
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n")
	// The refusal comes, then the end of the connection, with the body
	// never finished.
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("answer %d", resp.StatusCode)
	}
	io.Copy(io.Discard, resp.Body)
	if _, err := r.ReadByte(); err == nil {
		t.Fatal("the connection goes on after the refusal of a stalled body")
	}
}
