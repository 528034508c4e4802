package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// genCLIPassword returns a password of one of the shapes people pick: a word, digits and a symbol;
// three words joined by hyphens and a number; capitals, digits and symbols; or a random run.
func genCLIPassword(r *rand.Rand) string {
	words := []string{"amber", "river", "falcon", "orbit", "tundra", "maple", "ember", "quartz", "saule", "mango"}
	w := func() string { return words[r.IntN(len(words))] }
	switch r.IntN(4) {
	case 0:
		return strings.ToUpper(w()[:1]) + w()[1:] + fmt.Sprint(1000+r.IntN(9000)) + string("!%@#$&?"[r.IntN(7)])
	case 1:
		return w() + "-" + w() + "-" + w() + fmt.Sprint(r.IntN(100))
	case 2:
		return randTok(r, "ABCDEFGHJKLMNPQRSTUVWXYZ", 4) + fmt.Sprint(1000+r.IntN(9000)) + randTok(r, "%^!?~*+$", 4)
	}
	return randTok(r, alnum, 6) + randTok(r, "#)(", 1) + randTok(r, alnum, 6)
}

// TestCLIPasswords: a password given to a command after the flag that takes it, for the tools
// that define one, with or without a prompt, sudo, a path or quotes.
func TestCLIPasswords(t *testing.T) {
	s := mustNew(t, nil)
	frames := []string{
		"docker login -u ci -p %s registry.example.lv",
		"$ podman login --username deploy -p %s quay.io",
		"sudo sshpass -p %s ssh ops@bastion",
		"sshpass -p '%s' scp dump.sql backup@10.0.0.5:/srv",
		"mongosh --host db1 -u admin -p %s --authenticationDatabase admin",
		"redis-cli -h cache.internal -a %s ping",
		"/opt/mssql-tools/bin/sqlcmd -S db -U sa -P %s -Q 'select 1'",
		"ipmitool -I lanplus -H 10.1.1.9 -U ADMIN -P %s chassis status",
		"ldapsearch -x -D cn=admin,dc=example,dc=org -w %s -b dc=example,dc=org",
		"unzip -P %s export.zip",
		"keytool -list -keystore app.jks -storepass %s",
		"mosquitto_pub -h broker -u sensor -P %s -t temp -m 21",
		"oc login https://api.ocp:6443 -u kubeadmin -p %s",
		"helm registry login ghcr.io -u bot -p %s",
		"root@host:~# docker login -u admin -p \"%s\"",
	}
	secretsInFrames(t, s, frames, rand.New(rand.NewPCG(31, 7)), 60)
}

// The same flags elsewhere are ports, counts and file names, and a variable or a prompt is no
// password.
func TestCLIPasswordFlagsElsewhere(t *testing.T) {
	s := mustNew(t, nil)
	r := rand.New(rand.NewPCG(31, 8))
	frames := []string{
		"docker run -p %d:80 nginx:1.27",
		"ssh -p %d deploy@10.0.0.7",
		"redis-cli -h cache -p %d ping",
		"scp -P %d file.tar.gz host:/tmp",
		"docker login -u ci -p $DOCKER_PASSWORD registry.example.lv",
		"docker login -u ci -p ${REGISTRY_TOKEN%%x} registry",
		"echo $PW | docker login -u ci --password-stdin registry",
		"sshpass -p <password> ssh ops@bastion",
		"kubectl port-forward -p %d svc/api 8080",
		"zip -r -%d backup.zip data/",
		"mongosh -p --host db%d",
	}
	for k := 0; k < 44; k++ {
		f := frames[k%len(frames)]
		text := f
		if strings.Contains(f, "%d") {
			text = fmt.Sprintf(f, 1024+r.IntN(60000))
		}
		if fs := s.ScanText(text); Summarize(fs).Secret {
			t.Errorf("%q: %v", text, fs)
		}
	}
}

// TestNetrcAndEnvPasswords: .netrc lines, a password in the variable a client reads, and curl's
// user:password.
func TestNetrcAndEnvPasswords(t *testing.T) {
	s := mustNew(t, nil)
	frames := []string{
		"machine api.bank.lv login svc password %s",
		"machine ftp.example.com\n  login deploy\n  password %s",
		"default login anonymous password %s",
		"PGPASSWORD=%s psql -h db -U app app",
		"MYSQL_PWD='%s' mysqldump -u backup shop > shop.sql",
		"export SSHPASS=%s; sshpass -e ssh ops@bastion",
		"curl -u admin:%s https://jenkins.internal/api/json",
		"curl --user deploy:%s -X POST https://nexus.example.com/upload",
		"mysql -u reporting -p'%s' -h 10.0.0.230",
		"mysql -uroot -p%s shop",
		"wget --user=ci --password=%s https://repo.example.com/a.tgz",
		"psql \"postgresql://app:%s@db:5432/app\"",
	}
	secretsInFrames(t, s, frames, rand.New(rand.NewPCG(31, 9)), 48)
}

// secretsInFrames holds n generated passwords, each put in the frames in turn, to be found as
// secrets.
func secretsInFrames(t *testing.T, s *Scanner, frames []string, r *rand.Rand, n int) {
	t.Helper()
	for k := 0; k < n; k++ {
		text := fmt.Sprintf(frames[k%len(frames)], genCLIPassword(r))
		if !Summarize(s.ScanText(text)).Secret {
			t.Errorf("not found: %q", text)
		}
	}
}
