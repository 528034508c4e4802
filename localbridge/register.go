package localbridge

import (
	"encoding/json"
	"regexp"

	"github.com/moltgate/moltgate/localbridge/osp"
	"github.com/moltgate/moltgate/wire"
)

// toolNamePattern is the form of a tool name. Dots are allowed because tool names become
// MoltSpeak capabilities, which are dotted ("translate.text").
var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// validToolName reports whether name is a tool name. It must be a MoltSpeak capability
// name as well, with no empty label ("send.", "send..mail"): the agent's tools are its
// directory entry, which one name that is not a capability would keep out of the directory.
func validToolName(name string) bool {
	return toolNamePattern.MatchString(name) && wire.ValidCapability(name)
}

// register handles agent.tools.register: each tool is accepted or rejected on its own.
func (s *session) register(env *osp.Envelope) {
	var p osp.ToolsRegister
	if err := env.DecodePayload(&p); err != nil {
		s.reject(env.ID, err.(*osp.Error))
		return
	}
	resp := osp.ToolsRegistered{Registered: []string{}}
	rejectTool := func(id string, code, msg string) {
		resp.Rejected = append(resp.Rejected, osp.Rejection{ToolID: safeRef(id), Error: osp.Error{Code: code, Message: msg}})
	}
	var accepted []*tool
	seen := make(map[string]bool)
	for _, t := range p.Tools {
		if len(accepted) >= s.c.cfg.MaxTools {
			rejectTool(t.ToolID, osp.CodeTooManyTools, "the agent registers too many tools")
			continue
		}
		if !validToolName(t.Name) || t.ToolID != s.agentID+"/"+t.Name {
			rejectTool(t.ToolID, osp.CodeInvalidToolID, "tool_id must be <agent_id>/<name>, with a name of dot-separated [A-Za-z0-9_-] labels")
			continue
		}
		if seen[t.Name] {
			rejectTool(t.ToolID, osp.CodeDuplicateTool, "the tool is listed twice")
			continue
		}
		seen[t.Name] = true
		if len(t.Description) > maxDescriptionBytes {
			rejectTool(t.ToolID, osp.CodeInvalidSchema, "the description is too long")
			continue
		}
		in, err := compileSchema(t.InputSchema, s.c.cfg.MaxSchemaBytes)
		if err != nil {
			rejectTool(t.ToolID, osp.CodeInvalidSchema, "input_schema: "+err.Error())
			continue
		}
		if len(t.OutputSchema) > 0 {
			if _, err := compileSchema(t.OutputSchema, s.c.cfg.MaxSchemaBytes); err != nil {
				rejectTool(t.ToolID, osp.CodeInvalidSchema, "output_schema: "+err.Error())
				continue
			}
		}
		accepted = append(accepted, &tool{input: in, info: ToolInfo{
			ID:                t.ToolID,
			Name:              t.Name,
			Description:       t.Description,
			InputSchema:       append(json.RawMessage(nil), t.InputSchema...),
			OutputSchema:      append(json.RawMessage(nil), t.OutputSchema...),
			Capabilities:      boundedStrings(t.Capabilities),
			SideEffects:       t.SideEffects,
			RequiresDirective: t.RequiresDirective,
			Tags:              boundedStrings(t.Tags),
		}})
	}
	// Only this goroutine changes s.tools, so the new set can be worked out first and
	// installed as the reply is written: a call to a new tool cannot overtake the reply, nor
	// can the agent hear of a tool before calls to it are possible.
	s.mu.Lock()
	tools := s.tools
	s.mu.Unlock()
	next := make(map[string]*tool, len(tools)+len(accepted))
	if !p.Replace {
		for k, v := range tools {
			next[k] = v
		}
	}
	for _, t := range accepted {
		switch {
		case next[t.info.Name] != nil:
			rejectTool(t.info.ID, osp.CodeDuplicateTool, "a tool of that name is already registered")
		case len(next) >= s.c.cfg.MaxTools:
			rejectTool(t.info.ID, osp.CodeTooManyTools, "the agent registers too many tools")
		default:
			next[t.info.Name] = t
			resp.Registered = append(resp.Registered, t.info.ID)
		}
	}
	h := s.header(osp.TypeToolsRegistered)
	h.InReplyTo = safeRef(env.ID)
	s.sendWith(&h, resp, func() {
		s.mu.Lock()
		s.tools = next
		s.mu.Unlock()
		s.registeredOnce.Do(func() { close(s.registered) })
	})
	s.c.notify.changed(s.agentID)
}

func (s *session) unregister(env *osp.Envelope) {
	var p osp.ToolsUnregister
	if err := env.DecodePayload(&p); err != nil {
		s.reject(env.ID, err.(*osp.Error))
		return
	}
	resp := osp.ToolsUnregistered{Unregistered: []string{}}
	s.mu.Lock()
	for _, id := range p.ToolIDs {
		name, ok := cutPrefix(id, s.agentID+"/")
		if ok && s.tools[name] != nil {
			delete(s.tools, name)
			resp.Unregistered = append(resp.Unregistered, id)
		} else if ref := safeRef(id); ref != "" {
			resp.Unknown = append(resp.Unknown, ref)
		}
	}
	s.mu.Unlock()
	h := s.header(osp.TypeToolsUnregistered)
	h.InReplyTo = safeRef(env.ID)
	s.send(&h, resp)
	s.c.notify.changed(s.agentID)
}

// boundedStrings keeps at most 32 short strings.
func boundedStrings(in []string) []string {
	var out []string
	for _, s := range in {
		if len(out) == 32 {
			break
		}
		if s = safeRef(s); s != "" && len(s) <= 64 {
			out = append(out, s)
		}
	}
	return out
}
