package local

import (
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/moltgate/moltgate/wire"
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
// Partial results (JSON chunks) are streamed the same way: an agent that
// generates structured output sends {"delta":"jane.d"}, {"delta":"oe@exa"}...
// The strings of a partial result are read as text that continues the
// strings of the partial results before it on its channel. A partial result
// cannot be cut, so it is held whole until the text of those that follow
// it shows a space after its own (or holdBytes of text without one have
// come, or the agent has sent nothing for holdFor), and each is checked with the text sent
// before it and all of the text held: a value it begins is checked whole
// before any of it leaves.
//
// Only the output channels (stdout, stderr, partial_result), where output
// is generated as it goes, are held back; status and log chunks are whole
// notes, sent at once (checked in context all the same). Nothing is held
// once the agent has been silent for holdFor: a tool that prints a word and
// then works for a minute shows it. The wait starts again with each chunk,
// so that an agent streaming a value a character at a time to a gateway
// slowed by its load does not see its first part sent before the rest.
//
// A value written with spaces can still have its first part sent before
// the rest shows what it is; one without spaces cannot.
type textStream struct {
	max      int // bytes of text in one chunk
	send     func(channel, text, context string) error
	sendJSON func(channel string, v wire.Value, context string) error

	mu       sync.Mutex
	held     map[string]string    // per channel: text not sent yet
	parts    map[string][]partial // per channel: partial results not sent yet
	partText map[string]string    // per channel: the text of parts
	sent     map[string]string    // per channel: the end of what was sent
	channels []string             // in the order they were first used
	timer    *time.Timer          // sends what is held once holdFor passes
	last     time.Time            // when the last chunk came
	closed   bool                 // flushed for the last time
	failed   error                // what a send by the timer returned
}

// partial is a partial result held back, and where its text ends in the
// held text of its channel.
type partial struct {
	v   wire.Value
	end int
}

// contextBytes is how much of what a channel sent before goes with each
// chunk to the gate; holdBytes is how much text without a space is held
// before it goes anyway, holdFor for how long.
const (
	contextBytes = 256
	holdBytes    = 1024
	holdFor      = 200 * time.Millisecond
)

func newTextStream(max int, send func(channel, text, context string) error,
	sendJSON func(channel string, v wire.Value, context string) error) *textStream {
	return &textStream{max: max, send: send, sendJSON: sendJSON, held: map[string]string{},
		parts: map[string][]partial{}, partText: map[string]string{}, sent: map[string]string{}}
}

// generated reports the channels whose output is generated as it goes.
func generated(channel string) bool {
	return channel == "stdout" || channel == "stderr" || channel == "partial_result"
}

// wordEnd is where text that may go ends in buf: after its last space, or
// all of it when the channel's notes are whole or a long run has no space.
func wordEnd(channel, buf string) int {
	if !generated(channel) {
		return len(buf)
	}
	cut := strings.LastIndexAny(buf, " \t\r\n") + 1
	if cut == 0 && len(buf) > holdBytes {
		cut = len(buf) // a long run without spaces: no word boundary to wait for
	}
	return cut
}

func (t *textStream) use(channel string) {
	if !slices.Contains(t.channels, channel) {
		t.channels = append(t.channels, channel)
	}
}

// add takes one chunk of text of a channel.
func (t *textStream) add(channel, text string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failed != nil {
		return t.failed
	}
	// Partial results held go first, so that chunks keep their order.
	if t.failed = t.flushPartsLocked(); t.failed != nil {
		return t.failed
	}
	t.use(channel)
	buf := t.held[channel] + text
	cut := wordEnd(channel, buf)
	t.held[channel] = buf[cut:]
	if t.held[channel] != "" {
		t.hold()
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

// addJSON takes one partial result of a channel.
func (t *textStream) addJSON(channel string, v wire.Value) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failed != nil {
		return t.failed
	}
	// Text held goes first, so that chunks keep their order.
	if t.failed = t.flushTextLocked(); t.failed != nil {
		return t.failed
	}
	t.use(channel)
	buf := appendStrings([]byte(t.partText[channel]), v, 0)
	t.partText[channel] = string(buf)
	t.parts[channel] = append(t.parts[channel], partial{v: v, end: len(buf)})
	cut := wordEnd(channel, t.partText[channel])
	n := 0
	for n < len(t.parts[channel]) && t.parts[channel][n].end <= cut {
		n++
	}
	if n < len(t.parts[channel]) {
		t.hold()
	}
	if err := t.emitParts(channel, n); err != nil {
		t.failed = err
		return err
	}
	return nil
}

// appendStrings appends the string values of v, in order, to b.
func appendStrings(b []byte, v wire.Value, depth int) []byte {
	if depth > wire.MaxDepth {
		return b
	}
	switch v.Kind() {
	case wire.String:
		s, _ := v.Str()
		b = append(b, s...)
	case wire.Array:
		for _, e := range v.Elems() {
			b = appendStrings(b, e.Value, depth+1)
		}
	case wire.Object:
		for _, m := range v.Members() {
			b = appendStrings(b, m.Value, depth+1)
		}
	}
	return b
}

// emitParts sends the first n partial results held for channel. Each is
// checked with its own text and contextBytes of the text either side of it
// (sent before it, or held after it): a value that crosses either edge is
// whole there, and one inside it is found in the partial result itself. A
// long partial result's own text is given by its two ends, so that the gate
// does not scan the middle of every chunk twice.
func (t *textStream) emitParts(channel string, n int) error {
	if n == 0 {
		return nil
	}
	q, text := t.parts[channel], t.partText[channel]
	start := 0
	for _, p := range q[:n] {
		context := lastBytes(t.sent[channel]+text[:start], contextBytes) + edges(text[start:p.end]) +
			firstBytes(text[p.end:], contextBytes)
		if err := t.sendJSON(channel, p.v, context); err != nil {
			return err
		}
		start = p.end
	}
	end := q[n-1].end
	t.sent[channel] = lastBytes(t.sent[channel]+text[:end], contextBytes)
	t.partText[channel] = text[end:]
	rest := q[n:]
	for i := range rest {
		rest[i].end -= end
	}
	t.parts[channel] = rest
	return nil
}

// hold notes that a chunk came and something is held: what is held goes
// once nothing more has come for holdFor.
func (t *textStream) hold() {
	t.last = time.Now()
	if t.timer == nil {
		t.timer = time.AfterFunc(holdFor, t.flushHeld)
	}
}

// flushHeld sends what is held when the agent has been silent for holdFor,
// or waits the rest of that time if a chunk came since the timer was set.
func (t *textStream) flushHeld() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.timer = nil
	if t.closed || t.failed != nil {
		return
	}
	if wait := holdFor - time.Since(t.last); wait > 0 {
		t.timer = time.AfterFunc(wait, t.flushHeld)
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
	if err := t.flushTextLocked(); err != nil {
		return err
	}
	return t.flushPartsLocked()
}

func (t *textStream) flushTextLocked() error {
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

func (t *textStream) flushPartsLocked() error {
	for _, ch := range t.channels {
		if err := t.emitParts(ch, len(t.parts[ch])); err != nil {
			return err
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
// firstBytes is the start of s, at most n bytes, cut between characters.
func firstBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// edges is s, or its first and last contextBytes on two lines when it is
// longer than both: what joins a value inside s to the text either side.
func edges(s string) string {
	if len(s) <= 2*contextBytes {
		return s
	}
	return firstBytes(s, contextBytes) + "\n" + lastBytes(s, contextBytes)
}

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

// splitText cuts s into pieces of at most max bytes, between UTF-8
// characters. The empty string is one empty piece.
func splitText(s string, max int) []string {
	if len(s) <= max {
		return []string{s}
	}
	var out []string
	for len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 { // not UTF-8 at all: cut where the limit falls
			cut = max
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}
