package handshake

import "container/heap"

// idWindowSize is how many message ids a session remembers at most. A
// peer that re-seals a signed message under a new counter (a retry after a
// lost reply, or a faulty or hostile gateway) must not have it run twice,
// so ids are remembered as outside sessions; the bound keeps a busy
// session's memory fixed (about 1 MiB at most).
const idWindowSize = 8192

// idWindow remembers the ids of the messages a session accepted. It forgets
// an id once the message could no longer pass the time check (ts before
// now − skew), or, when full, forgets the oldest and raises a floor: a
// message whose ts is not after the floor is refused, since its id may have
// been forgotten. Under normal traffic the floor trails far behind the
// clock; a refusal asks the sender to sign the message again.
type idWindow struct {
	ids   map[string]int64 // id → ts, unix ms
	heap  idHeap           // min-heap on ts
	floor int64
}

type idEntry struct {
	ts int64
	id string
}

// seen reports why m cannot be accepted: a replay, or too old to tell.
// It records nothing; add does, once the message is accepted whole.
func (w *idWindow) seen(id string, ts, now, skew int64) (replay, tooOld bool) {
	w.expire(now - skew)
	if _, ok := w.ids[id]; ok {
		return true, false
	}
	return false, ts <= w.floor
}

func (w *idWindow) add(id string, ts int64) {
	if w.ids == nil {
		w.ids = make(map[string]int64)
	}
	w.ids[id] = ts
	w.push(idEntry{ts, id})
	if len(w.ids) > idWindowSize {
		e := w.pop()
		delete(w.ids, e.id)
		w.floor = max(w.floor, e.ts)
	}
}

// expire forgets ids whose messages are older than cutoff: the time check
// refuses any copy of them.
func (w *idWindow) expire(cutoff int64) {
	for len(w.heap) > 0 && w.heap[0].ts < cutoff {
		delete(w.ids, w.pop().id)
	}
}

func (w *idWindow) push(e idEntry) { heap.Push(&w.heap, e) }

func (w *idWindow) pop() idEntry { return heap.Pop(&w.heap).(idEntry) }

// idHeap is a min-heap on ts, for container/heap.
type idHeap []idEntry

func (h idHeap) Len() int           { return len(h) }
func (h idHeap) Less(i, j int) bool { return h[i].ts < h[j].ts }
func (h idHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *idHeap) Push(x any)        { *h = append(*h, x.(idEntry)) }
func (h *idHeap) Pop() any {
	q := *h
	e := q[len(q)-1]
	q[len(q)-1] = idEntry{}
	*h = q[:len(q)-1]
	return e
}
