package frames

// The HTTP face's wire contract, which the face reads and the calls to
// peers' HTTP faces write: both sides name it from here.
const (
	// HeaderDeadline carries a request's deadline, in Unix milliseconds
	// on the clock of the gateway that sends it; the receiving face
	// answers E_TIMEOUT once it has passed.
	HeaderDeadline = "X-Moltgate-Deadline"
	// ContentNDJSON is the media type of a streamed reply: one envelope a
	// line.
	ContentNDJSON = "application/x-ndjson"
)
