package wire

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const (
	testKey  = "ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="
	testEnc  = "x25519:hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo="
	testID   = "550e8400-e29b-41d4-a716-446655440000"
	testID2  = "6ba7b810-9dad-41d1-80b4-00c04fd430c8"
	testSig  = "ed25519:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+Pw=="
	testHead = `"v":"0.1","id":"` + testID + `","ts":1703280000000,"from":{"agent":"alice","org":"acme","key":"` + testKey + `"},"to":{"agent":"bob","org":"globex"}`
)

// msg builds a message with the standard head and the given op, payload,
// class and extra members.
func msg(op, p, cls string, extra ...string) string {
	s := `{` + testHead + `,"op":"` + op + `","p":` + p + `,"cls":"` + cls + `"`
	for _, e := range extra {
		s += "," + e
	}
	return s + "}"
}

// validPayloads has one valid payload for every operation.
var validPayloads = map[Op]string{
	OpHello:              `{"protocol_versions":["0.1"],"capabilities":["query"],"extensions":["acme.x"],"max_message_size":1048576,"supported_cls":["pub","int"],"nonce":"base64:AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM=","ephemeral_key":"` + testEnc + `"}`,
	OpHelloAck:           `{"protocol_versions":["0.1"],"capabilities":[],"extensions":[],"max_message_size":1048576,"supported_cls":["pub"],"nonce":"base64:AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=","ephemeral_key":"` + testEnc + `","challenge":"base64:AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI="}`,
	OpVerify:             `{"challenge":"base64:AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=","proof":"` + testSig + `"}`,
	OpVerifyResponse:     `{"proof":"` + testSig + `","session_id":"sess-0123456789abcdef","expires":1703283600000}`,
	OpSessionEstablished: `{"session_id":"sess-0123456789abcdef","expires":1703283600000}`,
	OpQuery:              `{"domain":"weather","intent":"forecast","params":{"location":"Tokyo"},"response_format":{"type":"structured"}}`,
	OpRespond:            `{"status":"success","data":{"high_c":12}}`,
	OpTask:               `{"action":"create","task_id":"task-789","type":"research","deadline":1703283600000,"priority":"normal","callback":{"on_complete":true},"subtasks":[{"id":"s1","type":"search"}]}`,
	OpStream:             `{"action":"chunk","stream_id":"stream-456","seq":3,"data":"partial text"}`,
	OpTool:               `{"action":"invoke","tool":"web-search","input":{"query":"MoltSpeak"}}`,
	OpConsent:            `{"action":"request","data_types":["email"],"purpose":"Schedule coordination"}`,
	OpError:              `{"code":"E_INVALID_PARAM","category":"validation","message":"bad","field":"p.x","recoverable":true,"suggestion":{"action":"retry"}}`,
	OpRegister:           `{"action":"create","profile":{"name":"MyAgent","endpoint":{"url":"https://a.example/moltspeak"},"capabilities":["task.execute"],"visibility":"public"},"ttl":86400000}`,
	OpDiscover:           `{"capability":"translate.text","requirements":{"languages":["en"]},"filters":{"verified":true,"min_uptime":0.99},"limit":10}`,
	OpPing:               `{"nonce":"random-value-12345"}`,
	OpPong:               `{"nonce":"random-value-12345","status":"alive","load":0.45,"queue_depth":12,"capabilities_active":["translate.text"]}`,
	OpSecurityAlert:      `{"alert_type":"key_revocation","affected_agent":"compromised-agent-c1","effective":1703281000000,"action_required":"terminate_sessions","revocation_list":{"serial":1}}`,
}

func TestDecodeEveryOp(t *testing.T) {
	c := NewCodec(Limits{})
	if len(validPayloads) != 17 || len(Ops()) != 17 {
		t.Fatalf("expected 17 ops")
	}
	for _, op := range Ops() {
		in := msg(string(op), validPayloads[op], "int", `"re":"`+testID2+`"`, `"sig":"`+testSig+`"`)
		m, err := c.Decode([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if m.Op != op || newPayload(op) == nil {
			t.Fatalf("%s: wrong op", op)
		}
		if want := newPayload(op); !sameType(want, m.Payload) {
			t.Fatalf("%s: payload %T", op, m.Payload)
		}
		// The wire form re-decodes to the same canonical bytes.
		out, err := m.AppendWire(nil)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := c.Decode(out)
		if err != nil {
			t.Fatalf("%s: re-decode: %v", op, err)
		}
		out2, _ := m2.AppendWire(nil)
		if !bytes.Equal(out, out2) {
			t.Fatalf("%s: wire form not stable", op)
		}
	}
}

func sameType(a, b any) bool { return a != nil && b != nil && typeName(a) == typeName(b) }
func typeName(x any) string  { return strings.TrimPrefix(strings.TrimPrefix(sprintT(x), "*"), "wire.") }

func TestDecodeRefuses(t *testing.T) {
	q := validPayloads[OpQuery]
	cases := []struct {
		name  string
		in    string
		code  Code
		field string
	}{
		{"not an object", `[1]`, ErrSchema, ""},
		{"no version", `{"id":"` + testID + `"}`, ErrMissingField, "v"},
		{"version 0.2", strings.Replace(msg("query", q, "int"), `"v":"0.1"`, `"v":"0.2"`, 1), ErrVersion, "v"},
		{"version number", strings.Replace(msg("query", q, "int"), `"v":"0.1"`, `"v":0.1`, 1), ErrSchema, "v"},
		{"malformed id", strings.Replace(msg("query", q, "int"), testID, "550e8400-e29b-41d4-a716-44665544000", 1), ErrInvalidParam, "id"},
		{"upper-case id", strings.Replace(msg("query", q, "int"), testID, strings.ToUpper(testID), 1), ErrInvalidParam, "id"},
		{"uuid v1", strings.Replace(msg("query", q, "int"), testID, "550e8400-e29b-11d4-a716-446655440000", 1), ErrInvalidParam, "id"},
		{"ts float", strings.Replace(msg("query", q, "int"), "1703280000000", "1703280000000.5", 1), ErrSchema, "ts"},
		{"ts exponent", strings.Replace(msg("query", q, "int"), "1703280000000", "1.70328e12", 1), ErrSchema, "ts"},
		{"ts string", strings.Replace(msg("query", q, "int"), "1703280000000", `"1703280000000"`, 1), ErrSchema, "ts"},
		{"ts in seconds", strings.Replace(msg("query", q, "int"), "1703280000000", "1703280000", 1), ErrInvalidParam, "ts"},
		{"ts negative", strings.Replace(msg("query", q, "int"), "1703280000000", "-1", 1), ErrInvalidParam, "ts"},
		{"ts absurd", strings.Replace(msg("query", q, "int"), "1703280000000", "99999999999999", 1), ErrInvalidParam, "ts"},
		{"ts beyond 2^53", strings.Replace(msg("query", q, "int"), "1703280000000", "99999999999999999999", 1), ErrParse, "ts"},
		{"unknown op", msg("teleport", q, "int"), ErrInvalidParam, "op"},
		{"unknown cls", msg("query", q, "topsecret"), ErrInvalidParam, "cls"},
		{"missing cls", strings.Replace(msg("query", q, "int"), `,"cls":"int"`, "", 1), ErrMissingField, "cls"},
		{"missing p", `{` + testHead + `,"op":"query","cls":"int"}`, ErrMissingField, "p"},
		{"p not object", msg("query", `[]`, "int"), ErrSchema, "p"},
		{"bad agent name", strings.Replace(msg("query", q, "int"), `"agent":"alice"`, `"agent":"al ice"`, 1), ErrInvalidParam, "from.agent"},
		{"missing org", strings.Replace(msg("query", q, "int"), `"agent":"bob","org":"globex"`, `"agent":"bob"`, 1), ErrMissingField, "to.org"},
		{"key wrong prefix", strings.Replace(msg("query", q, "int"), testKey, "x25519:"+testKey[8:], 1), ErrInvalidParam, "from.key"},
		{"key short", strings.Replace(msg("query", q, "int"), testKey, testKey[:40], 1), ErrInvalidParam, "from.key"},
		{"low-order enc_key", strings.Replace(msg("query", q, "int"), `"key":"`+testKey+`"`, `"key":"`+testKey+`","enc_key":"x25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="`, 1), ErrInvalidParam, "from.enc_key"},
		{"malformed sig", msg("query", q, "int", `"sig":"ed25519:abc"`), ErrInvalidParam, "sig"},
		{"re not uuid", msg("query", q, "int", `"re":"original-msg-id"`), ErrInvalidParam, "re"},
		{"exp before ts", msg("query", q, "int", `"exp":1703270000000`), ErrInvalidParam, "exp"},
		{"cap not name", msg("query", q, "int", `"cap":["tool invoke"]`), ErrInvalidParam, "cap[0]"},
		{"ext not namespaced", msg("query", q, "int", `"ext":{"reasoning":{}}`), ErrInvalidParam, "ext.reasoning"},
		{"ext value not object", msg("query", q, "int", `"ext":{"acme.x":1}`), ErrSchema, `ext["acme.x"]`},
		{"pii without meta", msg("query", q, "pii"), ErrMissingField, "pii_meta"},
		{"pii_meta bad type", msg("query", q, "pii", `"pii_meta":{"types":["shoe_size"],"consent":{"granted_by":"u","purpose":"p","proof":"x"}}`), ErrInvalidParam, "pii_meta.types[0]"},
		{"pii_meta no consent", msg("query", q, "pii", `"pii_meta":{"types":["email"]}`), ErrMissingField, "pii_meta.consent"},
		{"payload missing field", msg("query", `{"intent":"x"}`, "int"), ErrMissingField, "p.domain"},
		{"payload wrong type", msg("query", `{"domain":5}`, "int"), ErrSchema, "p.domain"},
		{"payload empty required", msg("query", `{"domain":""}`, "int"), ErrInvalidParam, "p.domain"},
		{"payload enum", msg("task", `{"action":"create","task_id":"t","priority":"asap"}`, "int"), ErrInvalidParam, "p.priority"},
		{"payload nested", msg("query", `{"domain":"d","response_format":{"type":"video"}}`, "int"), ErrInvalidParam, "p.response_format.type"},
		{"tool invoke without tool", msg("tool", `{"action":"invoke"}`, "int"), ErrMissingField, "p.tool"},
		{"register create without profile", msg("register", `{"action":"create"}`, "pub"), ErrMissingField, "p.profile"},
		{"discover limit", msg("discover", `{"capability":"a.b","limit":100000}`, "pub"), ErrInvalidParam, "p.limit"},
		{"alert type", msg("security_alert", `{"alert_type":"weather","effective":1,"action_required":"terminate_sessions"}`, "int"), ErrInvalidParam, "p.alert_type"},
		{"alert without effective", msg("security_alert", `{"alert_type":"key_revocation","action_required":"terminate_sessions"}`, "int"), ErrMissingField, "p.effective"},
		{"alert action", msg("security_alert", `{"alert_type":"key_revocation","effective":1,"action_required":"panic"}`, "int"), ErrInvalidParam, "p.action_required"},
		{"alert agent name", msg("security_alert", `{"alert_type":"key_revocation","affected_agent":"a b","effective":1,"action_required":"terminate_sessions"}`, "int"), ErrInvalidParam, "p.affected_agent"},
		{"nonce length", msg("verify", `{"challenge":"base64:AAAA","proof":"`+testSig+`"}`, "pub"), ErrInvalidParam, "p.challenge"},
		{"duplicate key", strings.Replace(msg("query", q, "int"), `"op":"query"`, `"op":"query","op":"tool"`, 1), ErrParse, "op"},
		{"trailing data", msg("query", q, "int") + "{}", ErrParse, ""},
		{"integer beyond 2^53", msg("stream", `{"action":"chunk","stream_id":"s","seq":9223372036854775808}`, "int"), ErrParse, "p.seq"},
	}
	c := NewCodec(Limits{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Decode([]byte(tc.in))
			wantErr(t, err, tc.code, tc.field)
		})
	}
}

func TestDecodeChunkLimit(t *testing.T) {
	c := NewCodec(Limits{MaxChunk: 1024})
	chunk := func(data string) string {
		return msg("stream", `{"action":"chunk","stream_id":"s","seq":1,"data":`+data+`}`, "int")
	}
	for _, ok := range []string{`"` + strings.Repeat("a", 1024) + `"`, `{"k":"` + strings.Repeat("a", 1023) + `"}`, `[1,2,3]`} {
		if _, err := c.Decode([]byte(chunk(ok))); err != nil {
			t.Errorf("%.40s: %v", ok, err)
		}
	}
	for _, big := range []string{`"` + strings.Repeat("a", 1025) + `"`, `{"k":"` + strings.Repeat("a", 1024) + `"}`,
		`[` + strings.Repeat(`"abcdefgh",`, 128) + `1]`} {
		_, err := c.Decode([]byte(chunk(big)))
		wantErr(t, err, ErrTooLarge, "p.data")
	}
	// Only chunks are bounded: start and end carry no data of their own.
	if _, err := c.Decode([]byte(msg("stream", `{"action":"end","stream_id":"s","status":"success"}`, "int"))); err != nil {
		t.Error(err)
	}
}

func TestDecodeLimits(t *testing.T) {
	c := NewCodec(Limits{MaxMessage: 4096, MaxDepth: 8})
	big := msg("query", `{"domain":"d","params":{"x":"`+strings.Repeat("a", 5000)+`"}}`, "int")
	_, err := c.Decode([]byte(big))
	wantErr(t, err, ErrTooLarge, "")
	// In the clear, as a bare message or in a plain envelope, the message
	// has no more room than Decode gives it: the envelope's larger limit
	// is for base64.
	_, err = c.DecodeEnvelope([]byte(big))
	wantErr(t, err, ErrTooLarge, "")
	_, err = c.DecodeEnvelope([]byte(`{"moltspeak":"0.1","envelope":{"encrypted":false},"message":` + big + `}`))
	wantErr(t, err, ErrTooLarge, "")
	fits := msg("query", `{"domain":"d","params":{"x":"`+strings.Repeat("a", 3000)+`"}}`, "int")
	if _, err := c.DecodeEnvelope([]byte(`{"moltspeak":"0.1","envelope":{"encrypted":false},"message":` + fits + `}`)); err != nil {
		t.Fatalf("a message within the limit, in a plain envelope: %v", err)
	}
	deep := msg("query", `{"domain":"d","params":`+strings.Repeat(`{"a":`, 7)+`1`+strings.Repeat(`}`, 7)+`}`, "int")
	_, err = c.Decode([]byte(deep))
	var we *Error
	if !errors.As(err, &we) || we.Code != ErrParse || !strings.Contains(we.Message, "nesting") {
		t.Fatalf("deep: %v", err)
	}
}

func TestDecodeKeepsUnknownFields(t *testing.T) {
	c := NewCodec(Limits{})
	in := msg("query", `{"domain":"d","future_field":{"x":[1,2]}}`, "internal", `"zz_future":{"keep":true}`)
	m, err := c.Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if m.Cls != Int {
		t.Fatalf("long-form class read as %v", m.Cls)
	}
	if len(m.Extra) != 1 || m.Extra[0].Key != "zz_future" {
		t.Fatalf("extra: %+v", m.Extra)
	}
	out, _ := m.AppendSigningBytes(nil)
	for _, want := range []string{`"zz_future":{"keep":true}`, `"future_field":{"x":[1,2]}`, `"cls":"internal"`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Fatalf("signing bytes lost %s: %s", want, out)
		}
	}
}

func TestEncodeChecksLikeDecode(t *testing.T) {
	c := NewCodec(Limits{})
	m := &Message{
		V: Version, ID: testID, TS: 1703280000000, Op: OpQuery,
		From: Sender{Agent: "alice", Org: "acme"}, To: Ref{Agent: "bob", Org: "globex"},
		Cls: Conf, Payload: &QueryPayload{Domain: "weather"},
	}
	b, err := c.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Decode(b); err != nil {
		t.Fatalf("encoded message does not decode: %v", err)
	}
	if !strings.Contains(string(b), `"cls":"conf"`) {
		t.Fatalf("class not emitted as its tag: %s", b)
	}
	bad := *m
	bad.Payload = &QueryPayload{}
	bad.decoded = false
	_, err = c.Encode(&bad)
	wantErr(t, err, ErrInvalidParam, "p.domain")
	wrongType := &Message{V: Version, ID: testID, TS: 1703280000000, Op: OpQuery, From: m.From, To: m.To, Cls: Int, Payload: &ToolPayload{Action: "list"}}
	_, err = c.Encode(wrongType)
	wantErr(t, err, ErrSchema, "p")
	noID := &Message{V: Version, TS: 1703280000000, Op: OpQuery, From: m.From, To: m.To, Cls: Int, Payload: &QueryPayload{Domain: "d"}}
	_, err = c.Encode(noID)
	wantErr(t, err, ErrInvalidParam, "id")
}

func TestErrorTable(t *testing.T) {
	spec := []Code{ErrParse, ErrVersion, ErrSchema, ErrMissingField, ErrInvalidParam, ErrAuthFailed, ErrSignature,
		ErrCapability, ErrConsent, ErrClassification, ErrRateLimit, ErrTimeout, ErrTaskFailed, ErrInternal,
		ErrAgentNotFound, ErrCapabilityUnknown, ErrRegistrationExpired, ErrRegistrationConflict,
		ErrVisibilityDenied, ErrRegistryUnavailable, ErrRateLimitDiscovery, ErrInvalidProfile}
	for _, c := range spec {
		if !c.Known() || c.HTTPStatus() < 400 || c.Category() == "" || c.Text() == "" {
			t.Errorf("%s: incomplete entry", c)
		}
	}
	statuses := map[Code]int{ErrParse: 400, ErrSignature: 401, ErrConsent: 403, ErrTooLarge: 413, ErrRateLimit: 429, ErrTimeout: 504, ErrInternal: 500}
	for c, s := range statuses {
		if c.HTTPStatus() != s {
			t.Errorf("%s: status %d, want %d", c, c.HTTPStatus(), s)
		}
	}
	p := Errorf(ErrRateLimit, "", "slow down").Payload()
	if p.Category != CatTransport || !p.Recoverable || p.Suggestion == nil || p.Suggestion.Action != ActionRetryAfter {
		t.Fatalf("payload: %+v", p)
	}
	// An error payload validates as the error op's payload.
	if err := NewCodec(Limits{}).ValidateStruct(p, "p"); err != nil {
		t.Fatal(err)
	}
}
