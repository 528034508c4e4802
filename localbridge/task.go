package localbridge

import (
	"context"
	"sync"
	"time"
)

// Task states.
const (
	TaskPending   = "pending" // waiting for approval or an in-flight slot
	TaskRunning   = "running"
	TaskSucceeded = "succeeded"
	TaskFailed    = "failed"
	TaskCanceled  = "canceled"
)

// TaskOptions configures an asynchronous call.
type TaskOptions struct {
	ID       string            // unique among the Core's tasks; random when empty
	Deadline time.Time         // sent to the agent as timeout_ms; zero means none
	OnChunk  func(Chunk) error // receives the stream chunks; may be nil
}

// Task is a call running in the background, as a MoltSpeak task is: it is started, asked for
// its status and perhaps cancelled, by different requests.
type Task struct {
	id       string
	created  time.Time
	deadline time.Time
	cancel   context.CancelFunc
	done     chan struct{}

	mu       sync.Mutex
	state    string
	chunks   int
	progress string
	finished time.Time
	result   Result
	err      error
}

// TaskStatus is a snapshot of a Task.
type TaskStatus struct {
	ID       string
	State    string // TaskPending, TaskRunning, TaskSucceeded, TaskFailed or TaskCanceled
	Chunks   int    // stream chunks received so far
	Progress string // the text of the latest "status" chunk
	Created  time.Time
	Deadline time.Time
	Finished time.Time
	Result   Result // when State is TaskSucceeded
	Err      error  // when State is TaskFailed or TaskCanceled; OutcomeOf maps it
}

// Start begins a call in the background. The checks that need no waiting (the agent, the tool,
// the input's schema) are made before Start returns, and their failure is Start's error.
// Approval, the wait for an in-flight slot and the call itself happen in the background.
func (c *Core) Start(req CallRequest, opts TaskOptions) (*Task, error) {
	p, err := c.prepare(req)
	if err != nil {
		return nil, err
	}
	if opts.ID == "" {
		opts.ID = c.newID()
	}
	ctx, cancel := context.WithCancel(c.lifetime())
	if !opts.Deadline.IsZero() {
		cancel()
		ctx, cancel = context.WithDeadline(c.lifetime(), opts.Deadline)
	}
	t := &Task{id: opts.ID, created: c.cfg.Now(), deadline: opts.Deadline, cancel: cancel, done: make(chan struct{}), state: TaskPending}
	if err := c.tasks.add(t, c.cfg.Now(), c.cfg.TaskRetention, c.cfg.MaxTasks); err != nil {
		cancel()
		return nil, err
	}
	go func() {
		defer cancel()
		res, err := c.execute(ctx, p, func(ch Chunk) error {
			t.mu.Lock()
			t.chunks++
			if ch.Channel == "status" {
				t.progress = ch.Text
			}
			t.mu.Unlock()
			if opts.OnChunk != nil {
				return opts.OnChunk(ch)
			}
			return nil
		}, t)
		t.finish(c.cfg.Now(), res, err)
	}()
	return t, nil
}

// Task returns the task of that id, running or finished within TaskRetention.
func (c *Core) Task(id string) (*Task, bool) { return c.tasks.get(id) }

// ID returns the task's id.
func (t *Task) ID() string { return t.id }

// Cancel asks for the task to stop; the agent is sent core.tool.cancel. The task ends in
// TaskCanceled unless it finished first.
func (t *Task) Cancel() { t.cancel() }

// Done is closed when the task has finished.
func (t *Task) Done() <-chan struct{} { return t.done }

// Wait waits for the task to finish, or for ctx to end.
func (t *Task) Wait(ctx context.Context) (Result, error) {
	select {
	case <-t.done:
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.result, t.err
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

// Status returns a snapshot of the task.
func (t *Task) Status() TaskStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	return TaskStatus{
		ID: t.id, State: t.state, Chunks: t.chunks, Progress: t.progress,
		Created: t.created, Deadline: t.deadline, Finished: t.finished,
		Result: t.result, Err: t.err,
	}
}

func (t *Task) setState(s string) {
	t.mu.Lock()
	t.state = s
	t.mu.Unlock()
}

func (t *Task) finish(now time.Time, res Result, err error) {
	t.mu.Lock()
	t.finished, t.result, t.err = now, res, err
	switch {
	case err == nil:
		t.state = TaskSucceeded
	case IsCanceled(err):
		t.state = TaskCanceled
	default:
		t.state = TaskFailed
	}
	t.mu.Unlock()
	close(t.done)
}

func (t *Task) expired(now time.Time, retention time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.finished.IsZero() && now.Sub(t.finished) > retention
}

type taskTable struct {
	mu    sync.Mutex
	tasks map[string]*Task
}

func (tt *taskTable) add(t *Task, now time.Time, retention time.Duration, limit int) error {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.tasks == nil {
		tt.tasks = make(map[string]*Task)
	}
	if _, ok := tt.tasks[t.id]; ok {
		return coreErr(CodeTaskExists, "a task of that id exists")
	}
	if len(tt.tasks) >= limit {
		for id, old := range tt.tasks {
			if old.expired(now, retention) {
				delete(tt.tasks, id)
			}
		}
		if len(tt.tasks) >= limit {
			err := coreErr(CodeOverloaded, "too many tasks")
			err.Retryable = true
			return err
		}
	}
	tt.tasks[t.id] = t
	return nil
}

func (tt *taskTable) get(id string) (*Task, bool) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	t, ok := tt.tasks[id]
	return t, ok
}
