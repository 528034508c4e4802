package osp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func frames(msgs ...string) []byte {
	var b []byte
	for _, m := range msgs {
		b = AppendFrame(b, []byte(m))
	}
	return b
}

func TestReaderPartialReads(t *testing.T) {
	msgs := []string{`{"a":1}`, `{"b":"` + strings.Repeat("x", 100<<10) + `"}`, `{"c":3}`}
	r := NewReader(iotest.OneByteReader(bytes.NewReader(frames(msgs...))), 0)
	for i, want := range msgs {
		got, err := r.ReadFrame()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if string(got) != want {
			t.Fatalf("frame %d: got %d bytes, want %d", i, len(got), len(want))
		}
	}
	if _, err := r.ReadFrame(); err != io.EOF {
		t.Fatalf("after last frame: got %v, want io.EOF", err)
	}
}

func TestReaderTruncated(t *testing.T) {
	full := frames(`{"a":"bcdef"}`)
	for cut := 1; cut < len(full); cut++ {
		r := NewReader(bytes.NewReader(full[:cut]), 0)
		if _, err := r.ReadFrame(); err != io.ErrUnexpectedEOF {
			t.Fatalf("cut at %d: got %v, want io.ErrUnexpectedEOF", cut, err)
		}
	}
}

func TestReaderLimit(t *testing.T) {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], 0xFFFFFFFF)
	r := NewReader(io.MultiReader(bytes.NewReader(hdr[:]), iotest.ErrReader(errors.New("body must not be read"))), 1024)
	_, err := r.ReadFrame()
	var tl *FrameTooLargeError
	if !errors.As(err, &tl) || tl.Size != 0xFFFFFFFF || tl.Limit != 1024 {
		t.Fatalf("got %v, want FrameTooLargeError", err)
	}

	r = NewReader(bytes.NewReader(frames(strings.Repeat("x", 1025))), 1024)
	if _, err := r.ReadFrame(); !errors.As(err, &tl) {
		t.Fatalf("got %v, want FrameTooLargeError", err)
	}
	r = NewReader(bytes.NewReader(frames(strings.Repeat("x", 1024))), 1024)
	if _, err := r.ReadFrame(); err != nil {
		t.Fatalf("frame at the limit: %v", err)
	}
}

func TestReaderEmptyFrame(t *testing.T) {
	r := NewReader(bytes.NewReader([]byte{0, 0, 0, 0}), 0)
	if _, err := r.ReadFrame(); err != ErrEmptyFrame {
		t.Fatalf("got %v, want ErrEmptyFrame", err)
	}
}

func TestWriteFrame(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteFrame(&buf, []byte(`{"x":1}`), 0); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.Bytes(), frames(`{"x":1}`); !bytes.Equal(got, want) {
		t.Fatalf("got %x, want %x", got, want)
	}
	var tl *FrameTooLargeError
	if err := WriteFrame(&buf, make([]byte, 11), 10); !errors.As(err, &tl) {
		t.Fatalf("oversize write: got %v", err)
	}
	if err := WriteFrame(&buf, nil, 0); err != ErrEmptyFrame {
		t.Fatalf("empty write: got %v", err)
	}
}

// A read deadline that passes inside a frame loses nothing: the next ReadFrame finishes it.
func TestReadFrameResumesAfterDeadline(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	msg := []byte(`{"v":1,"type":"agent.heartbeat","id":"x"}`)
	frame := AppendFrame(nil, msg)
	frame = AppendFrame(frame, []byte(`{"next":true}`))
	written := make(chan struct{})
	goOn := make(chan struct{})
	go func() {
		// Each piece is written once the reader has taken the one before it.
		for i, piece := range [][]byte{frame[:2], frame[2:9], frame[9:]} {
			if _, err := client.Write(piece); err != nil {
				t.Error(err)
				return
			}
			if i < 2 {
				written <- struct{}{}
				<-goOn
			}
		}
	}()
	r := NewReader(server, 0)
	for range 2 {
		done := make(chan error, 1)
		go func() {
			_, err := r.ReadFrame()
			done <- err
		}()
		// The reader took a piece and waits for the next; a deadline in the past interrupts it.
		<-written
		server.SetReadDeadline(time.Unix(1, 0))
		if err := <-done; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("interrupted read: %v", err)
		}
		server.SetReadDeadline(time.Time{})
		goOn <- struct{}{}
	}
	got, err := r.ReadFrame()
	if err != nil || string(got) != string(msg) {
		t.Fatalf("resumed read: %q, %v", got, err)
	}
	if got, err = r.ReadFrame(); err != nil || string(got) != `{"next":true}` {
		t.Fatalf("next frame: %q, %v", got, err)
	}
}
