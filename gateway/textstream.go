package gateway

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// textStream passes an agent's streamed text to a peer so that the gate
// sees what a chunk says in context. The gate checks each message alone,
// and an agent that streams as it thinks (a token at a time) splits an
// e-mail address or a card number across chunks, none of which holds
// enough of it to be found. So:
//
//   - the end of a chunk after its last space is held back and sent with the
//     next chunk of its channel, or at the end: words, and the values found
//     in them (addresses, numbers, keys), are not cut across messages;
//   - each chunk is checked as the text sent just before it on its channel
//     (up to contextBytes) followed by the chunk, so that a value written
//     with spaces ("4111 1111 …") is found once it is whole, before the
//     chunk that completes it leaves.
//
// Only the output channels (stdout, stderr), where text is generated as it
// goes, are held back; status and log chunks are whole notes, sent at once
// (checked in context all the same). Nothing is held for longer than
// holdFor: a tool that prints a word and then works for a minute shows it.
//
// A value written with spaces can still have its first part sent before
// the rest shows what it is; one without spaces cannot.
type textStream struct {
	max  int // bytes of text in one chunk
	send func(channel, text, context string) error

	mu       sync.Mutex
	held     map[string]string // per channel: text not sent yet
	sent     map[string]string // per channel: the end of what was sent
	channels []string          // in the order they were first used
	timer    *time.Timer       // sends what is held once holdFor passes
	closed   bool              // flushed for the last time
	failed   error             // what a send by the timer returned
}

// contextBytes is how much of what a channel sent before goes with each
// chunk to the gate; holdBytes is how much text without a space is held
// before it goes anyway, holdFor for how long.
const (
	contextBytes = 256
	holdBytes    = 1024
	holdFor      = 200 * time.Millisecond
)

func newTextStream(max int, send func(channel, text, context string) error) *textStream {
	return &textStream{max: max, send: send, held: map[string]string{}, sent: map[string]string{}}
}

// add takes one chunk of text of a channel.
func (t *textStream) add(channel, text string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failed != nil {
		return t.failed
	}
	if _, ok := t.held[channel]; !ok {
		t.channels = append(t.channels, channel)
	}
	buf := t.held[channel] + text
	cut := len(buf)
	if channel == "stdout" || channel == "stderr" {
		cut = strings.LastIndexAny(buf, " \t\r\n") + 1
		if cut == 0 && len(buf) > holdBytes {
			cut = len(buf) // a long run without spaces: no word boundary to wait for
		}
	}
	t.held[channel] = buf[cut:]
	if t.held[channel] != "" && t.timer == nil {
		t.timer = time.AfterFunc(holdFor, t.flushHeld)
	}
	if cut == 0 {
		return nil
	}
	if err := t.emit(channel, buf[:cut]); err != nil {
		// Nothing more goes once a chunk is refused: not what is held,
		// by the timer or at the end.
		t.failed = err
		return err
	}
	return nil
}

// flushHeld sends what is held when it has waited holdFor.
func (t *textStream) flushHeld() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.timer = nil
	if t.closed || t.failed != nil {
		return
	}
	t.failed = t.flushLocked()
}

// flush sends what is held, for the last time: at the end of the call, or
// before a chunk that is not text, so that chunks keep their order.
func (t *textStream) flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	if t.failed != nil {
		return t.failed
	}
	t.failed = t.flushLocked()
	return t.failed
}

// close flushes, and stops the timer for good.
func (t *textStream) close() error {
	err := t.flush()
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	return err
}

func (t *textStream) flushLocked() error {
	for _, ch := range t.channels {
		if rest := t.held[ch]; rest != "" {
			t.held[ch] = ""
			if err := t.emit(ch, rest); err != nil {
				return err
			}
		}
	}
	return nil
}

// emit sends text as chunks of at most max bytes, each with the context
// before it.
func (t *textStream) emit(channel, text string) error {
	for _, piece := range splitText(text, t.max) {
		before := t.sent[channel]
		if err := t.send(channel, piece, before); err != nil {
			return err
		}
		t.sent[channel] = lastBytes(before+piece, contextBytes)
	}
	return nil
}

// lastBytes is the end of s, at most n bytes, starting on a character.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
