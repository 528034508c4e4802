package osp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
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
