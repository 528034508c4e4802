package frames

import "sync"

// envelopeBufs recycles the buffers of envelopes whose bytes nothing keeps
// once handled: those this gateway seals, once the WebSocket writer has
// taken its copy; a peer's replies over WebSocket or gRPC, once opened;
// and what the stream faces receive, once the pipeline has handled it.
// Decoding an envelope copies what it keeps (wire.Codec.DecodeEnvelope:
// the parser's own copy, the decoded ciphertext, copied strings). A sealed 1 KiB message is about 2.9 KB. Envelopes are
// mostly ciphertext, and the pipeline refuses without echoing, so a buffer
// is not cleared.
var envelopeBufs = sync.Pool{New: func() any { return new([]byte) }}

// ReadSize is the buffer a WebSocket message is first read into: a
// sealed 1 KiB message (about 2.9 KB) fits.
const ReadSize = 4 << 10

// maxPooledEnvelope is the largest buffer kept: a stream chunk's envelope.
const maxPooledEnvelope = 96 << 10

// GetEnvelopeBuf is a buffer to read or seal an envelope into.
func GetEnvelopeBuf() []byte {
	bp := envelopeBufs.Get().(*[]byte)
	if *bp == nil {
		return make([]byte, 0, ReadSize)
	}
	return (*bp)[:0]
}

// PutEnvelopeBuf gives b back. b must not be used after, by anyone.
func PutEnvelopeBuf(b []byte) {
	if cap(b) == 0 || cap(b) > maxPooledEnvelope {
		return
	}
	b = b[:0]
	envelopeBufs.Put(&b)
}
