package pii

import "strings"

// Passwords given to a command on its command line: "docker login -u ci -p X registry",
// "ldapsearch -D cn=admin -w X", "sqlcmd -S db -U sa -P X", "ipmitool -I lanplus -U admin -P X".
// A short flag means a password only to the tools that define it so ("docker run -p 8080:80" is
// a port, "ssh -p 2222" too), so the flag is read against the command the line runs. Long flags
// ("--password X", "--db-password X") name the password themselves and are the prose rule's cues.

// cliTool is a command and the short flags after which it takes a password as the next argument.
type cliTool struct {
	name  string
	sub   string // a subcommand the flag needs ("login"), or ""
	flags string // space-separated
}

var cliTools = []cliTool{
	{"docker", "login", "-p"}, {"podman", "login", "-p"}, {"nerdctl", "login", "-p"}, {"buildah", "login", "-p"},
	{"skopeo", "login", "-p"}, {"helm", "login", "-p"}, {"oras", "login", "-p"}, {"cf", "login", "-p"},
	{"oc", "login", "-p"}, {"az", "login", "-p"}, {"sshpass", "", "-p"}, {"mongo", "", "-p"}, {"mongosh", "", "-p"},
	{"mongodump", "", "-p"}, {"mongorestore", "", "-p"}, {"mongoexport", "", "-p"}, {"mongoimport", "", "-p"},
	{"rabbitmqadmin", "", "-p"}, {"redis-cli", "", "-a"}, {"sqlcmd", "", "-P"}, {"bcp", "", "-P"},
	{"ipmitool", "", "-P"}, {"mosquitto_pub", "", "-P"}, {"mosquitto_sub", "", "-P"}, {"zip", "", "-P"},
	{"unzip", "", "-P"}, {"ldapsearch", "", "-w"}, {"ldapadd", "", "-w"}, {"ldapmodify", "", "-w"},
	{"ldapdelete", "", "-w"}, {"ldapwhoami", "", "-w"}, {"ldappasswd", "", "-w -s"}, {"keytool", "", "-storepass -keypass -srcstorepass -deststorepass"},
	{"jarsigner", "", "-storepass -keypass"}, {"influx", "", "-password"}, {"smbpasswd", "", "-w"},
}

// cliPasswordFlag reports whether the argument s[ts:te] follows a flag that gives a password to
// the command its line runs, or is given as cliArgPassword reads.
func cliPasswordFlag(s string, ts, te int) bool {
	return mayFollowFlag(s, ts) && cliFlagBefore(s, ts) || cliArgPassword(s, ts, te)
}

// cliPassword is cliPasswordFlag on x.s, the other ways tried only in a text that holds one of
// their marks ("echo ", "-U ", "htpasswd"), which is looked for once a text.
func (x *scanCtx) cliPassword(ts, te int) bool {
	s := x.s
	if mayFollowFlag(s, ts) && cliFlagBefore(s, ts) {
		return true
	}
	if x.cliMarksOf != s {
		x.cliMarksOf = s
		x.cliMarks = strings.Contains(s, "echo ") || strings.Contains(s, "-U ") || strings.Contains(s, "htpasswd")
	}
	return x.cliMarks && cliArgPassword(s, ts, te)
}

// cliArgPassword reports the other ways a command line gives a password, at the argument that
// starts at ts: echoed into a command that reads one on its standard input ("echo 'X' | sudo -S
// …", "| passwd --stdin", "| chpasswd"), Samba's user%password after -U ("smbclient //h/s -U
// root%X"), and htpasswd's last argument after -b ("htpasswd -bc .htpasswd user X").
func cliArgPassword(s string, ts, te int) bool {
	k := ts
	if k > 0 && (s[k-1] == '\'' || s[k-1] == '"') {
		k--
	}
	// Each case reads a few bytes around the argument first, so that prose pays for no line.
	switch {
	case k >= 5 && s[k-5:k] == "echo ":
		le := min(len(s), te+100)
		if n := strings.IndexByte(s[te:le], '\n'); n >= 0 {
			le = te + n
		}
		rest := s[te:le]
		p := strings.IndexByte(rest, '|')
		if p < 0 {
			return false
		}
		cmd, args := commandOf(rest[p+1:])
		return strings.HasPrefix(strings.TrimSpace(rest[p+1:]), "sudo -S ") || cmd == "passwd" && hasWord(args, "--stdin") ||
			cmd == "chpasswd"
	case strings.IndexByte(s[ts:te], '%') > 0:
		// -U user%password: the argument after -U.
		return ts >= 3 && s[ts-3:ts] == "-U "
	case te < len(s) && s[te] != '\n':
		return false // htpasswd's password is its line's last argument
	}
	ls := max(0, ts-200)
	ls += strings.LastIndexByte(s[ls:ts], '\n') + 1
	if !strings.Contains(s[ls:ts], "htpasswd ") {
		return false
	}
	cmd, args := commandOf(s[ls:ts])
	if cmd != "htpasswd" {
		return false
	}
	for _, f := range strings.Fields(args) {
		if len(f) > 1 && f[0] == '-' && f[1] != '-' && strings.IndexByte(f, 'b') > 0 {
			return true
		}
	}
	return false
}

// mayFollowFlag is cliPasswordFlag's cheap front, on the few bytes before ts: a space after a
// short flag ("-p ") or after one that ends in "pass" or "password" ("-storepass ").
func mayFollowFlag(s string, ts int) bool {
	k := ts - 1
	if k > 0 && (s[k] == '"' || s[k] == '\'') {
		k--
	}
	return k >= 2 && s[k] == ' ' && (s[k-2] == '-' || s[k-1] == 's' || s[k-1] == 'd')
}

func cliFlagBefore(s string, ts int) bool {
	// The argument before: a flag.
	fe := ts
	if fe > 0 && (s[fe-1] == '"' || s[fe-1] == '\'') {
		fe-- // -p "X"
	}
	start := fe
	for fe > 0 && (s[fe-1] == ' ' || s[fe-1] == '\t') {
		fe--
	}
	if fe == start || fe == 0 {
		return false
	}
	// Read the flag back over the bytes a flag is made of, so that a word of prose before the
	// value costs a byte or two.
	fs := fe
	for fs > 0 && fe-fs <= 16 && (isAlnum(s[fs-1]) || s[fs-1] == '-' || s[fs-1] == '_') {
		fs--
	}
	flag := s[fs:fe]
	if len(flag) < 2 || flag[0] != '-' || fs > 0 && !isSpace(s[fs-1]) {
		return false
	}
	ls := strings.LastIndexByte(s[:fs], '\n') + 1
	if fs-ls > 200 {
		return false
	}
	tool, rest := commandOf(s[ls:fs])
	if tool == "" {
		return false
	}
	for _, t := range cliTools {
		if t.name != tool || !hasWord(t.flags, flag) {
			continue
		}
		return t.sub == "" || hasWord(rest, t.sub)
	}
	return false
}

// commandOf returns the command a shell line runs (past a history number, a prompt, sudo, env,
// time and variable assignments, and a path before the name) and the rest of the line up to the flag.
func commandOf(line string) (string, string) {
	f := strings.Fields(line)
	for k, w := range f {
		switch {
		case w == "$" || w == "#" || w == ">" || w == "%" || w == "sudo" || w == "env" || w == "time" || w == "exec" ||
			w == "nohup" || strings.HasSuffix(w, "$") || strings.HasSuffix(w, "#") || strings.HasSuffix(w, ">"):
			continue
		case strings.IndexByte(w, '=') > 0 && !strings.HasPrefix(w, "-"):
			continue // PGHOST=db
		case k == 0 && len(w) <= 6 && strings.Trim(w, "0123456789") == "":
			continue // a shell history's number: "  512  mysql -p…"
		}
		w = strings.Trim(w, "`'\"")
		if i := strings.LastIndexByte(w, '/'); i >= 0 {
			w = w[i+1:]
		}
		return strings.TrimSuffix(w, ".exe"), strings.Join(f[k+1:], " ")
	}
	return "", ""
}

// hasWord reports whether the space-separated list holds w.
func hasWord(list, w string) bool {
	for _, x := range strings.Fields(list) {
		if x == w {
			return true
		}
	}
	return false
}
