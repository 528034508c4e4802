package gateway

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/moltgate/moltgate/gateway/roster"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// LocalAgent is an agent this gateway runs or admits, as `moltgate agent
// add` records it in DIR/agents/ID.json (see roster.Record).
type LocalAgent = roster.Record

// AddAgentOptions are the choices of moltgate agent add.
type AddAgentOptions struct {
	ID           string
	Exec         string // command line, split like a shell would
	Capabilities []string
	MaxCls       string // empty: the configured default
	QueryTool    string
	Approval     bool
	Visibility   string
	Passphrase   []byte
	// Replace rewrites the record of an agent already added, keeping its
	// key; a serving gateway applies the change (see Server.ReloadAgents).
	Replace bool
}

// AddAgent records a local agent and makes its signing key.
func AddAgent(d Dir, opts AddAgentOptions) (*LocalAgent, error) {
	cfg, err := d.ReadConfig()
	if err != nil {
		return nil, err
	}
	if !wire.ValidName(opts.ID) || opts.ID == GatewayAgent {
		return nil, optionErr("agent add", "--id", "--id must match [A-Za-z0-9_-]{1,128} and not be %q", GatewayAgent)
	}
	argv, err := SplitCommand(opts.Exec)
	if err != nil {
		return nil, &OptionError{Cmd: "agent add", Option: "--exec", Msg: "--exec: " + err.Error(), Err: err}
	}
	for _, c := range opts.Capabilities {
		if !wire.ValidCapability(c) {
			return nil, optionErr("agent add", "--capability", "--capability %q is not a capability name", c)
		}
	}
	clsText := opts.MaxCls
	if clsText == "" {
		clsText = cfg.Security.AgentMaxCls
	}
	cls, ok := wire.ParseClass(clsText)
	if !ok {
		return nil, optionErr("agent add", "--max-cls", "--max-cls must be one of pub, int, conf, pii, sec")
	}
	vis := opts.Visibility
	switch vis {
	case "":
		vis = "public"
	case "public", "unlisted", "private":
	default:
		return nil, optionErr("agent add", "--visibility", "--visibility must be public, unlisted or private")
	}
	path := filepath.Join(d.AgentsDir(), opts.ID+".json")
	_, err = os.Stat(path)
	exists := err == nil
	switch {
	case exists && !opts.Replace:
		return nil, fmt.Errorf("agent add: %s: %w (give --replace to change it)", opts.ID, fs.ErrExist)
	case !exists && opts.Replace:
		return nil, fmt.Errorf("agent add --replace: %s: %w", opts.ID, fs.ErrNotExist)
	}
	if exists {
		// The agent keeps its key, and with it its directory entry.
		if _, err := LoadAgentIdentity(d, opts.ID, opts.Passphrase); err != nil {
			return nil, fmt.Errorf("agent add --replace: %w", err)
		}
	} else if err := newAgentKey(d, cfg.Org, opts.ID, opts.Passphrase); err != nil {
		return nil, err
	}
	a := &LocalAgent{ID: opts.ID, Exec: argv, Capabilities: opts.Capabilities, MaxCls: cls,
		QueryTool: opts.QueryTool, Approval: opts.Approval, Visibility: vis}
	out, _ := json.MarshalIndent(a, "", "  ")
	if err := writeFileAtomic(path, append(out, '\n'), 0o600); err != nil {
		return nil, err
	}
	return a, nil
}

// newAgentKey makes a local agent's signing key. The agent signs with its
// own key; it receives through the gateway, whose X25519 key is every local
// agent's enc_key.
func newAgentKey(d Dir, org, id string, passphrase []byte) error {
	gw, err := LoadOrg(d, passphrase)
	if err != nil {
		return err
	}
	sk, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		return err
	}
	kf := &keys.KeyFile{Agent: id, Org: org, Signing: sk, Encryption: gw.Encryption}
	return keys.WriteFile(d.AgentKeyPath(id), kf, keys.WriteOptions{Passphrase: passphrase, Overwrite: true})
}

// LoadAgents reads every local agent record and checks each, so that a
// serving gateway never takes up a record it would refuse at start. A
// mistake is a *ConfigError naming the file and the key.
func LoadAgents(d Dir) ([]*LocalAgent, error) {
	ents, err := os.ReadDir(d.AgentsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var out []*LocalAgent
	for _, e := range ents {
		// Files being written (".ID.json.tmp…") are not records yet.
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		a, err := readAgent(filepath.Join(d.AgentsDir(), e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// readAgent reads and checks one agent record.
func readAgent(path string) (*LocalAgent, error) {
	file := "agents/" + filepath.Base(path)
	a := new(LocalAgent)
	if err := readRecord(path, file, a); err != nil {
		return nil, err
	}
	if a.ID+".json" != filepath.Base(path) {
		return nil, &ConfigError{Key: file + ": id", Msg: fmt.Sprintf("%q does not match the file name", a.ID)}
	}
	if err := validateAgent(a); err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			ce.Key = file + ": " + ce.Key
		}
		return nil, err
	}
	return a, nil
}

// readRecord reads the JSON record at path, named file in messages, into
// v. A field v does not have is a mistake, as in moltgate.toml, not
// silently ignored: so is a misspelt one.
func readRecord(path, file string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := readChecked(f, file)
	if err != nil {
		return err
	}
	if err := exactKeys(b, file, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return recordFileError(file, err)
	}
	if dec.More() {
		return &ConfigError{Key: file, Msg: "more than one JSON object"}
	}
	return nil
}

// exactKeys checks the members of the record b against the JSON names of
// the fields of *v, spelt exactly. encoding/json matches names without
// regard to case, and takes the last of two members of one name: "EXEC"
// would set exec, and a second "max_cls" would win over the first.
func exactKeys(b []byte, file string, v any) error {
	tree, err := wire.Parse(b, wire.MaxDepth)
	var we *wire.Error
	if errors.As(err, &we) && strings.HasPrefix(we.Message, "duplicate key") {
		return &ConfigError{Key: file + ": " + we.Field, Msg: "set twice"}
	}
	if err != nil || tree.Kind() != wire.Object {
		return nil // the decoder says what is wrong
	}
	names := map[string]bool{}
	t := reflect.TypeOf(v).Elem()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names[name] = true
	}
	for _, m := range tree.Members() {
		if !names[m.Key] {
			return &ConfigError{Key: file + ": " + m.Key, Msg: "unknown setting"}
		}
	}
	return nil
}

// recordFileError names the key of a record that does not decode. A value
// that its type refuses (only wire.Class parses its own text in records) is
// a bad classification, whose only key is max_cls.
func recordFileError(file string, err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var we *wire.Error
	switch {
	case errors.As(err, &te):
		return &ConfigError{Key: file + ": " + te.Field, Msg: "wrong type (want " + te.Type.String() + ")"}
	case errors.As(err, &se):
		return &ConfigError{Key: file, Msg: fmt.Sprintf("not JSON at byte %d: %s", se.Offset, se.Error())}
	case errors.As(err, &we):
		// Neither its message nor the error itself: the command line puts
		// the code of a *wire.Error it finds in front of the whole line.
		return &ConfigError{Key: file + ": max_cls", Msg: classChoice}
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &ConfigError{Key: file + ": " + strings.Trim(f, `"`), Msg: "unknown setting"}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &ConfigError{Key: file, Msg: "empty or cut short"}
	}
	return &ConfigError{Key: file, Msg: oneLine(err.Error()), Err: err}
}

// classChoice is what a ceiling must be.
const classChoice = "must be one of pub, int, conf, pii, sec"

// validateAgent checks a record as moltgate agent add would write it. A
// mistake is a *ConfigError naming the key.
func validateAgent(a *LocalAgent) error {
	bad := func(key, format string, args ...any) error {
		return &ConfigError{Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if !wire.ValidName(a.ID) || a.ID == GatewayAgent {
		return bad("id", "must match [A-Za-z0-9_-]{1,128} and not be %q", GatewayAgent)
	}
	if len(a.Exec) > 0 && a.Exec[0] == "" {
		return bad("exec", "the program must not be empty")
	}
	for i, c := range a.Capabilities {
		if !wire.ValidCapability(c) {
			return bad(fmt.Sprintf("capabilities[%d]", i), "%q is not a capability name", c)
		}
	}
	if a.MaxCls != 0 && !a.MaxCls.Valid() {
		return bad("max_cls", classChoice)
	}
	if a.QueryTool != "" && !wire.ValidName(a.QueryTool) {
		return bad("query_tool", "must match [A-Za-z0-9_-]{1,128}")
	}
	switch a.Visibility {
	case "", "public", "unlisted", "private":
	default:
		return bad("visibility", "must be public, unlisted or private")
	}
	return nil
}

// RemoveAgent deletes a local agent's record and its signing key. A
// serving gateway stops the agent and withdraws its directory entry within
// seconds (at once on SIGHUP).
func RemoveAgent(d Dir, id string) (*LocalAgent, error) {
	if !wire.ValidName(id) {
		return nil, optionErr("agent remove", "--id", "--id must match [A-Za-z0-9_-]{1,128}")
	}
	path := filepath.Join(d.AgentsDir(), id+".json")
	a, err := readAgent(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("agent remove: %s: %w", id, fs.ErrNotExist)
	}
	if err != nil {
		// A broken record can still be removed.
		a = &LocalAgent{ID: id}
	}
	// The record first: without it the key is used no more.
	if err := os.Remove(path); err != nil {
		return nil, fmt.Errorf("agent remove: %w", err)
	}
	if err := os.Remove(d.AgentKeyPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("agent remove: %w", err)
	}
	return a, nil
}

// LoadAgentIdentity reads a local agent's keys.
func LoadAgentIdentity(d Dir, id string, passphrase []byte) (*identity.Agent, error) {
	return loadIdentity(d, "keys/agents/"+id+".json", passphrase)
}

// SplitCommand splits a command line as a POSIX shell would for words:
// whitespace separates, single quotes keep everything, double quotes keep
// everything but \" and \\, and a backslash escapes the next character.
// It does no expansion of any kind.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("trailing backslash")
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
