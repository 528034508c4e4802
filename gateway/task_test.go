package gateway

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// message builds a message of s's to the echo agent, with s's capability
// certificates.
func (s *sender) message(op wire.Op, cls wire.Class, p any) *wire.Message {
	return &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: op,
		From: s.id.Sender(), To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: cls, Payload: p, Ext: s.ext}
}

// task builds a task message of s's to the echo agent.
func (s *sender) task(p *wire.TaskPayload) *wire.Message { return s.message(wire.OpTask, wire.Conf, p) }

// taskState is the state a task answer reports, and its data.
func taskState(t *testing.T, a faceAnswer) (string, wire.Value) {
	t.Helper()
	if a.final == nil || a.code() != "" {
		t.Fatalf("task answer: %s", a.raw)
	}
	p, ok := a.final.Payload.(*wire.RespondPayload)
	if !ok || p.Status != "success" {
		t.Fatalf("task answer %s %+v", a.final.Op, a.final.Payload)
	}
	st, _ := p.Data.Get("status").Str()
	return st, p.Data
}

// TestTaskOps: a peer creates tasks on a local agent, asks their status
// and cancels them, over every face. Deadlines end tasks; a task of a named
// tool needs the tool.invoke certificate that a tool message needs; task
// ids are the requesting organisation's and the running agent's.
func TestTaskOps(t *testing.T) {
	r := newFaceRig(t)
	for _, face := range faceNames {
		t.Run(face, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := r.dial(ctx, t, face)
			defer c.close()
			c.t = t
			// Each message from an agent of its own: the rig gives each
			// sending agent a burst of three. Task ids are the
			// organisation's, so any of them may ask about a task.
			n := 0
			as := func() *sender {
				n++
				s := newSender(t, r.acme, fmt.Sprintf("tasker%d-%s", n, face))
				c.as = s
				return s
			}
			do := func(p *wire.TaskPayload) faceAnswer {
				p.TaskID = face + "-" + p.TaskID
				s := as()
				return send(ctx, c, s, s.task(p))
			}
			await := func(id, want string) wire.Value {
				t.Helper()
				for end := time.Now().Add(10 * time.Second); ; {
					st, data := taskState(t, do(&wire.TaskPayload{Action: "status", TaskID: id}))
					if st == want {
						return data
					}
					if st != "pending" && st != "running" || time.Now().After(end) {
						t.Fatalf("task %s is %s (%s), want %s", id, st, wire.AppendCanonical(nil, data), want)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			params := func(s string) wire.Value {
				v, err := wire.Parse([]byte(s), 0)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}

			// Created, answered at once, then completed with its result.
			st, data := taskState(t, do(&wire.TaskPayload{Action: "create", TaskID: "t1", Type: "sleep", Params: params(`{"ms":200}`)}))
			if st != "pending" && st != "running" {
				t.Fatalf("created task is %s", st)
			}
			if id, _ := data.Get("task_id").Str(); id != face+"-t1" {
				t.Fatalf("created task's id %q", id)
			}
			data = await("t1", "completed")
			if ms, _ := data.Get("result").Get("slept_ms").Int(); ms != 200 {
				t.Fatalf("result %s", wire.AppendCanonical(nil, data))
			}

			// The same id again is refused, naming the field.
			a := do(&wire.TaskPayload{Action: "create", TaskID: "t1", Type: "sleep", Params: params(`{"ms":1}`)})
			if a.code() != wire.ErrInvalidParam || a.final.Payload.(*wire.ErrorPayload).Field != "p.task_id" {
				t.Fatalf("duplicate id: %s %s", a.code(), a.raw)
			}

			// Cancelled while it runs.
			taskState(t, do(&wire.TaskPayload{Action: "create", TaskID: "t2", Type: "sleep", Params: params(`{"ms":20000}`)}))
			taskState(t, do(&wire.TaskPayload{Action: "cancel", TaskID: "t2"}))
			await("t2", "cancelled")

			// Ended by its deadline.
			taskState(t, do(&wire.TaskPayload{Action: "create", TaskID: "t3", Type: "sleep", Params: params(`{"ms":20000}`),
				Deadline: time.Now().Add(300 * time.Millisecond).UnixMilli()}))
			data = await("t3", "failed")
			if code, _ := data.Get("error").Get("code").Str(); code != string(wire.ErrTimeout) {
				t.Fatalf("task past its deadline: %s", wire.AppendCanonical(nil, data))
			}

			// Without a type, the agent's query tool runs.
			taskState(t, do(&wire.TaskPayload{Action: "create", TaskID: "t4", Params: params(`{"text":"by query"}`)}))
			data = await("t4", "completed")
			if txt, _ := data.Get("result").Get("text").Str(); txt != "by query" {
				t.Fatalf("query-tool task: %s", wire.AppendCanonical(nil, data))
			}

			for _, bad := range []struct {
				p     *wire.TaskPayload
				code  wire.Code
				field string
			}{
				{&wire.TaskPayload{Action: "status", TaskID: "never"}, wire.ErrInvalidParam, "p.task_id"},
				{&wire.TaskPayload{Action: "cancel", TaskID: "never"}, wire.ErrInvalidParam, "p.task_id"},
				{&wire.TaskPayload{Action: "create", TaskID: "t5", Type: "nope"}, wire.ErrInvalidParam, "p.type"},
				{&wire.TaskPayload{Action: "create", TaskID: "t6", Type: "echo", Params: params(`{"text":5}`)}, wire.ErrInvalidParam, "p.input.text"},
			} {
				a := do(bad.p)
				if a.code() != bad.code || a.final.Payload.(*wire.ErrorPayload).Field != bad.field {
					t.Errorf("%s %s: %s, want %s on %s", bad.p.Action, bad.p.TaskID, a.raw, bad.code, bad.field)
				}
			}

			// An agent of the same organisation without the tool.invoke
			// certificate may run the query tool as a task, but no named
			// tool: that would be a tool call without the certificate.
			plain := newSender(t, r.acme, "uncertified-"+face)
			plain.ext = wire.Value{}
			c.as = plain
			a = send(ctx, c, plain, plain.task(&wire.TaskPayload{Action: "create", TaskID: face + "-t7", Type: "echo", Params: params(`{"text":"x"}`)}))
			if a.code() != wire.ErrCapability {
				t.Fatalf("named-tool task without a certificate: %s %s", a.code(), a.raw)
			}
			if st, _ := taskState(t, send(ctx, c, plain, plain.task(&wire.TaskPayload{Action: "create", TaskID: face + "-t8", Params: params(`{"text":"x"}`)}))); st == "" {
				t.Fatal("query-tool task without a certificate has no state")
			}
		})
	}
}

// TestTaskResultUnderConsent: a task created with personal data under a
// consent may have its result, which carries that data back, read by the
// agent that created it, as a tool call's answer may; another agent of the
// same organisation asking for it is refused, since the consent was not
// for it.
func TestTaskResultUnderConsent(t *testing.T) {
	r := newFaceRig(t)
	ctx, c, owner := r.session(t, pipeline.FaceWS, "owner")
	now := time.Now()
	cid, _ := consent.NewID(rand.Reader)
	tok, err := consent.Issue(r.acme.Signing, consent.Claims{ID: cid, GrantedBy: "jane@acme", Grantee: "echo@globex",
		Purpose: "support", DataTypes: []string{"email"}, IssuedAt: now.UnixMilli(), Expires: now.Add(time.Hour).UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	params, _ := wire.Parse([]byte(`{"text":"write to jane.doe@example.com"}`), 0)
	m := owner.message(wire.OpTask, wire.PII, &wire.TaskPayload{Action: "create", TaskID: "mail", Type: "echo", Params: params})
	m.PIIMeta = &wire.PIIMeta{Types: []string{"email"}, Consent: &wire.Consent{GrantedBy: "jane@acme", Purpose: "support", Proof: tok, Expires: now.Add(time.Hour).UnixMilli()}}
	taskState(t, send(ctx, c, owner, m))

	status := func(s *sender) faceAnswer {
		c.as = s
		return send(ctx, c, s, s.message(wire.OpTask, wire.Conf, &wire.TaskPayload{Action: "status", TaskID: "mail"}))
	}
	var data wire.Value
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		a := status(owner)
		if a.code() != "" {
			t.Fatalf("the creator's status: %s %+v", a.code(), a.final.Payload)
		}
		var st string
		if st, data = taskState(t, a); st == "completed" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("task is %s", st)
		}
	}
	if txt, _ := data.Get("result").Get("text").Str(); txt != "write to jane.doe@example.com" {
		t.Fatalf("result %s", wire.AppendCanonical(nil, data))
	}
	if a := status(newSender(t, r.acme, "colleague")); a.code() != wire.ErrConsent {
		t.Fatalf("another agent's status: %s %+v, want E_CONSENT", a.code(), a.final.Payload)
	}
}
