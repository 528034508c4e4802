package pii

import "strings"

// Vendor tokens, recognised by the prefixes their issuers document. Each rule knows the body's
// alphabet and length; a body of the right alphabet and length scores 0.95. Issuers change
// lengths (OpenAI project keys grew, Slack added segments, GitHub fine-grained tokens are new),
// and tokens are cut or padded on the way, so a known prefix followed by a body of another
// length is still a token when the body reads as random (looseBody, 0.85): at least 16 bytes,
// two character classes, frequent class changes, no filler run or counting sequence, and 3 bits
// of entropy per byte. A prose word that starts with a prefix ("sk-learn", "hf_hub_download",
// "xoxo-gossip") is one class of letters and never qualifies.

// tokenRules are tried, through the first-bytes filter, at every word that may start a token.
var tokenRules = []tokenRule{
	// Cloud providers.
	{"AKIA", awsKeyID},
	{"ASIA", awsKeyID},
	{"ABIA", awsKeyID},
	{"ACCA", awsKeyID},
	fixed("A3T", csUpperOnly|csDigitOnly, 17, 17, 2.5, TypeCloudToken, "secret.aws-access-key"),
	fixed("ABSKQmVkcm9ja0FQSUtleS", setB64, 100, 112, 0, TypeCloudToken, "secret.aws-bedrock-key"),
	fixed("bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t", setB64|csDash|csUnder, 0, 2000, 0, TypeCloudToken, "secret.aws-bedrock-key"),
	fixed("AIza", setWordD, 35, 35, 3, TypeCloudToken, "secret.gcp-api-key"),
	fixed("ya29.", setWordD|csDot, 20, 2048, 3, TypeCloudToken, "secret.gcp-oauth-access-token"),
	fixed("GOCSPX-", setWordD, 28, 28, 3, TypeCloudToken, "secret.gcp-oauth-client-secret"),
	fixed("LTAI", csAlnum, 20, 20, 3, TypeCloudToken, "secret.alibaba-access-key-id"),
	fixed("AKCp", csAlnum, 69, 69, 3, TypeCloudToken, "secret.artifactory-api-key"),
	fixed("dop_v1_", setHexL, 64, 64, 3, TypeCloudToken, "secret.digitalocean-pat"),
	fixed("doo_v1_", setHexL, 64, 64, 3, TypeCloudToken, "secret.digitalocean-access-token"),
	fixed("dor_v1_", setHexL, 64, 64, 3, TypeCloudToken, "secret.digitalocean-refresh-token"),
	fixed("HRKU-AA", setWordD, 58, 58, 3, TypeCloudToken, "secret.heroku-api-key"),
	fixed("HRKU-", setWordD, 60, 60, 3, TypeCloudToken, "secret.heroku-api-key"),
	fixed("fo1_", setWordD, 43, 43, 3, TypeCloudToken, "secret.flyio-access-token"),
	fixed("FlyV1 fm1r_", setB64|csUnder|csEq|csDash, 40, 5000, 3, TypeCloudToken, "secret.flyio-access-token"),
	fixed("FlyV1 fm1a_", setB64|csUnder|csEq|csDash, 40, 5000, 3, TypeCloudToken, "secret.flyio-access-token"),
	fixed("FlyV1 fm2_", setB64|csUnder|csEq|csDash, 40, 5000, 3, TypeCloudToken, "secret.flyio-access-token"),
	fixed("tk-us-", setWordD, 48, 48, 3, TypeCloudToken, "secret.scalingo-api-token"),
	fixed("v1.0-", setHexL|csDash, 171, 171, 3, TypeCloudToken, "secret.cloudflare-origin-ca-key"),
	fixed("nfp_", csAlnum, 40, 40, 3, TypeCloudToken, "secret.netlify-access-token"),
	fixed("sbp_", setHexL, 40, 40, 3, TypeCloudToken, "secret.supabase-access-token"),
	fixed("sb_secret_", setWordD, 31, 31, 3, TypeCloudToken, "secret.supabase-secret-key"),
	fixed("rnd_", csAlnum, 32, 32, 3, TypeCloudToken, "secret.render-api-key"),
	fixed("pscale_tkn_", setWordD|csDot|csEq, 32, 64, 3, TypeCloudToken, "secret.planetscale-api-token"),
	fixed("pscale_pw_", setWordD|csDot|csEq, 32, 64, 3, TypePassword, "secret.planetscale-password"),
	fixed("pscale_oauth_", setWordD|csDot|csEq, 32, 64, 3, TypeCloudToken, "secret.planetscale-oauth-token"),
	fixed("dckr_pat_", setWordD, 27, 27, 3, TypeCloudToken, "secret.docker-hub-pat"),
	fixed("dt0c01.", csAlnum|csDot, 89, 89, 3, TypeCloudToken, "secret.dynatrace-api-token"),
	{"NRAK-", upperAlnum("NRAK-", 27, "secret.newrelic-user-api-key")},
	{"NRJS-", upperAlnum("NRJS-", 19, "secret.newrelic-browser-api-token")},
	{"NRII-", upperAlnum("NRII-", 32, "secret.newrelic-insert-key")},

	// Source hosting and package registries.
	fixed("ghp_", csAlnum, 36, 36, 3, TypeAPIToken, "secret.github-pat"),
	fixed("gho_", csAlnum, 36, 36, 3, TypeAPIToken, "secret.github-oauth"),
	fixed("ghu_", csAlnum, 36, 36, 3, TypeAPIToken, "secret.github-app-token"),
	fixed("ghs_", csAlnum, 36, 36, 3, TypeAPIToken, "secret.github-app-token"),
	fixed("ghr_", csAlnum, 36, 36, 3, TypeAPIToken, "secret.github-refresh-token"),
	fixed("github_pat_", setWord, 82, 82, 3, TypeAPIToken, "secret.github-fine-grained-pat"),
	fixed("glpat-", setWordD|csDot, 20, 300, 3, TypeAPIToken, "secret.gitlab-pat"),
	fixed("glptt-", setHexAny, 40, 40, 3, TypeAPIToken, "secret.gitlab-ptt"),
	fixed("GR1348941", setWordD, 20, 20, 3, TypeAPIToken, "secret.gitlab-rrt"),
	fixed("glrt-", setWordD|csDot, 20, 300, 3, TypeAPIToken, "secret.gitlab-runner-token"),
	fixed("glcbt-", setWordD, 21, 26, 3, TypeAPIToken, "secret.gitlab-cicd-job-token"),
	fixed("gldt-", setWordD, 20, 20, 3, TypeAPIToken, "secret.gitlab-deploy-token"),
	fixed("glffct-", setWordD, 20, 20, 3, TypeAPIToken, "secret.gitlab-feature-flag-token"),
	fixed("glft-", setWordD, 20, 20, 3, TypeAPIToken, "secret.gitlab-feed-token"),
	fixed("glimt-", setWordD, 25, 25, 3, TypeAPIToken, "secret.gitlab-incoming-mail-token"),
	fixed("glagent-", setWordD, 50, 50, 3, TypeAPIToken, "secret.gitlab-agent-token"),
	fixed("gloas-", setWordD, 64, 64, 3, TypeAPIToken, "secret.gitlab-oauth-app-secret"),
	fixed("glsoat-", setWordD, 20, 20, 3, TypeAPIToken, "secret.gitlab-scim-token"),
	fixed("ATBB", csAlnum, 32, 32, 3, TypeAPIToken, "secret.bitbucket-app-password"),
	fixed("npm_", csAlnum, 36, 36, 3, TypeAPIToken, "secret.npm-access-token"),
	fixed("pypi-AgE", setWordD, 60, 1000, 3, TypeAPIToken, "secret.pypi-upload-token"),
	fixed("rubygems_", setHexL, 48, 48, 3, TypeAPIToken, "secret.rubygems-api-token"),
	fixed("oy2", csLower|csDigitOnly, 43, 43, 3, TypeAPIToken, "secret.nuget-api-key"),
	fixed("CLOJARS_", csAlnum, 60, 60, 3, TypeAPIToken, "secret.clojars-api-token"),
	{"sgp_", sourcegraph},
	fixed("squ_", csAlnum, 40, 40, 3, TypeAPIToken, "secret.sonar-api-token"),
	fixed("sqp_", csAlnum, 40, 40, 3, TypeAPIToken, "secret.sonar-api-token"),
	fixed("sqa_", csAlnum, 40, 40, 3, TypeAPIToken, "secret.sonar-api-token"),
	fixed("glc_", setB64, 32, 400, 3, TypeAPIToken, "secret.grafana-cloud-token"),
	fixed("glsa_", setWord, 41, 41, 3, TypeAPIToken, "secret.grafana-service-account-token"),
	fixed("eyJrIjoi", csAlnum, 70, 400, 3, TypeAPIToken, "secret.grafana-api-key"),
	fixed("sntrys_eyJ", setB64|csUnder|csEq, 50, 1000, 3, TypeAPIToken, "secret.sentry-org-token"),
	fixed("sntryu_", setHexL, 64, 64, 3, TypeAPIToken, "secret.sentry-user-token"),
	fixed("ico-", csAlnum, 32, 32, 3, TypeAPIToken, "secret.infracost-api-token"),
	fixed("pul-", setHexL, 40, 40, 3, TypeAPIToken, "secret.pulumi-api-token"),
	fixed("pnu_", csAlnum, 36, 36, 3, TypeAPIToken, "secret.prefect-api-token"),
	fixed("rdme_", csLower|csDigitOnly, 70, 70, 3, TypeAPIToken, "secret.readme-api-token"),
	fixed("dnkey-", setWordD|csEq, 79, 79, 3, TypeAPIToken, "secret.defined-networking-token"),
	fixed("API-", csUpperOnly|csDigitOnly, 26, 26, 3, TypeAPIToken, "secret.octopus-deploy-api-key"),
	{"dapi", orLoose(databricks, "dapi", setHexL, "secret.databricks-api-token")},

	// Secret stores and identity.
	fixed("hvs.", setWordD, 24, 300, 3, TypeAPIToken, "secret.vault-service-token"),
	fixed("hvb.", setWordD, 100, 300, 3, TypeAPIToken, "secret.vault-batch-token"),
	fixed("hvr.", setWordD, 24, 300, 3, TypeAPIToken, "secret.vault-recovery-token"),
	fixed("dp.pt.", csAlnum, 43, 43, 3, TypeAPIToken, "secret.doppler-api-token"),
	fixed("dp.st.", setWordD|csDot, 43, 80, 3, TypeAPIToken, "secret.doppler-service-token"),
	fixed("dp.ct.", csAlnum, 43, 43, 3, TypeAPIToken, "secret.doppler-cli-token"),
	fixed("dp.sa.", csAlnum, 43, 43, 3, TypeAPIToken, "secret.doppler-service-account-token"),
	fixed("dp.scim.", csAlnum, 43, 43, 3, TypeAPIToken, "secret.doppler-scim-token"),
	fixed("dp.audit.", csAlnum, 43, 43, 3, TypeAPIToken, "secret.doppler-audit-token"),
	fixed("ops_eyJ", setB64, 250, 5000, 3, TypeAPIToken, "secret.1password-service-account-token"),
	{"A3-", onePasswordKey},
	fixed("AGE-SECRET-KEY-1", csAlnum, 58, 58, 0, TypePrivateKey, "secret.age-secret-key"),

	// Collaboration and SaaS.
	fixed("ATATT3", setWordD|csEq, 180, 200, 3, TypeAPIToken, "secret.atlassian-api-token"),
	fixed("ATCTT3", setWordD|csEq, 180, 200, 3, TypeAPIToken, "secret.atlassian-api-token"),
	fixed("lin_api_", csAlnum, 40, 40, 3, TypeAPIToken, "secret.linear-api-key"),
	fixed("lin_oauth_", setHexL, 64, 64, 3, TypeAPIToken, "secret.linear-oauth-token"),
	{"ntn_", orLoose(notion, "ntn_", setWord, "secret.notion-api-token")},
	fixed("secret_", csAlnum, 43, 43, 3, TypeAPIToken, "secret.notion-api-token"),
	fixed("PMAK-", setHexL|csDash, 59, 59, 3, TypeAPIToken, "secret.postman-api-token"),
	fixed("figd_", setWordD, 40, 40, 3, TypeAPIToken, "secret.figma-pat"),
	fixed("xkeysib-", setHexL|csDash|csAlnum, 81, 81, 3, TypeAPIToken, "secret.brevo-api-key"),
	fixed("xsmtpsib-", setHexL|csDash|csAlnum, 81, 81, 3, TypeAPIToken, "secret.brevo-smtp-key"),
	fixed("SG.", setWordD|csDot, 66, 66, 3, TypeAPIToken, "secret.sendgrid-api-token"),
	fixed("key-", setHexL, 32, 32, 3, TypeAPIToken, "secret.mailgun-api-key"),
	fixed("xapp-", setWordD, 20, 200, 3, TypeAPIToken, "secret.slack-app-token"),
	{"xox", orLoose(slack, "xox", setWordD|csDot, "secret.slack-token")},
	{"hooks.slack.com/", slackWebhook},
	{"discord.com/api/webhooks/", discordWebhook},
	{"discordapp.com/api/webhooks/", discordWebhook},
	{"webhook.office.com/webhook", teamsWebhook},
	{"outlook.office.com/webhook", teamsWebhook},
	fixed("sk_live_", csAlnum, 10, 247, 3, TypeAPIToken, "secret.stripe"),
	fixed("sk_test_", csAlnum, 10, 247, 3, TypeAPIToken, "secret.stripe"),
	fixed("sk_prod_", csAlnum, 10, 247, 3, TypeAPIToken, "secret.stripe"),
	fixed("rk_live_", csAlnum, 10, 247, 3, TypeAPIToken, "secret.stripe"),
	fixed("rk_test_", csAlnum, 10, 247, 3, TypeAPIToken, "secret.stripe"),
	fixed("rk_prod_", csAlnum, 10, 247, 3, TypeAPIToken, "secret.stripe"),
	fixed("whsec_", setB64|csEq, 32, 64, 3, TypeAPIToken, "secret.stripe-webhook-secret"),
	fixed("sq0atp-", setWordD, 22, 22, 3, TypeAPIToken, "secret.square-access-token"),
	fixed("sq0csp-", setWordD, 43, 43, 3, TypeAPIToken, "secret.square-secret"),
	fixed("EAAA", setWordD, 60, 60, 3, TypeAPIToken, "secret.square-access-token"),
	{"EAA", facebookToken},
	fixed("shpat_", setHexAny, 32, 32, 3, TypeAPIToken, "secret.shopify-access-token"),
	fixed("shpss_", setHexAny, 32, 32, 3, TypeAPIToken, "secret.shopify-shared-secret"),
	fixed("shpca_", setHexAny, 32, 32, 3, TypeAPIToken, "secret.shopify-custom-access-token"),
	fixed("shppa_", setHexAny, 32, 32, 3, TypeAPIToken, "secret.shopify-private-app-token"),
	fixed("shippo_live_", setHexAny, 40, 40, 3, TypeAPIToken, "secret.shippo-api-token"),
	fixed("shippo_test_", setHexAny, 40, 40, 3, TypeAPIToken, "secret.shippo-api-token"),
	fixed("duffel_live_", setWordD|csEq, 43, 43, 3, TypeAPIToken, "secret.duffel-api-token"),
	fixed("duffel_test_", setWordD|csEq, 43, 43, 3, TypeAPIToken, "secret.duffel-api-token"),
	fixed("EZAK", csAlnum, 54, 54, 3, TypeAPIToken, "secret.easypost-api-token"),
	fixed("EZTK", csAlnum, 54, 54, 3, TypeAPIToken, "secret.easypost-api-token"),
	fixed("FLWSECK_TEST-", setHexAny|csDash|csUpperOnly, 32, 34, 3, TypeAPIToken, "secret.flutterwave-secret-key"),
	fixed("FLWSECK-", setHexAny|csDash|csUpperOnly, 32, 34, 3, TypeAPIToken, "secret.flutterwave-secret-key"),
	fixed("fio-u-", setWordD|csEq, 64, 64, 3, TypeAPIToken, "secret.frameio-api-token"),
	fixed("sm_pat_", csAlnum, 16, 16, 3, TypeAPIToken, "secret.settlemint-token"),
	fixed("sm_aat_", csAlnum, 16, 16, 3, TypeAPIToken, "secret.settlemint-token"),
	fixed("sm_sat_", csAlnum, 16, 16, 3, TypeAPIToken, "secret.settlemint-token"),
	fixed("s-s4t2ud-", setHexL, 64, 64, 3, TypeAPIToken, "secret.intra42-client-secret"),
	fixed("s-s4t2af-", setHexL, 64, 64, 3, TypeAPIToken, "secret.intra42-client-secret"),
	fixed("sk.eyJ", setWordD|csDot, 80, 400, 3, TypeAPIToken, "secret.mapbox-secret-token"),

	// Model providers and AI tooling.
	{"sk-", skDash},
	fixed("hf_", csLower|csUpperOnly, 34, 34, 3, TypeAPIToken, "secret.huggingface-token"),
	fixed("api_org_", csLower|csUpperOnly, 34, 34, 3, TypeAPIToken, "secret.huggingface-org-token"),
	fixed("gsk_", csAlnum, 52, 52, 3, TypeAPIToken, "secret.groq-api-key"),
	fixed("xai-", csAlnum, 80, 80, 3, TypeAPIToken, "secret.xai-api-key"),
	fixed("pplx-", csAlnum, 48, 48, 3, TypeAPIToken, "secret.perplexity-api-key"),
	fixed("r8_", csAlnum, 37, 37, 3, TypeAPIToken, "secret.replicate-api-token"),
	fixed("nvapi-", setWordD, 64, 64, 3, TypeAPIToken, "secret.nvidia-api-key"),
	fixed("fw_", csAlnum, 24, 24, 3, TypeAPIToken, "secret.fireworks-api-key"),
	fixed("csk-", csAlnum, 48, 48, 3, TypeAPIToken, "secret.cerebras-api-key"),
	fixed("tvly-", setWordD, 32, 40, 3, TypeAPIToken, "secret.tavily-api-key"),
	fixed("pcsk_", setWord, 70, 70, 3, TypeAPIToken, "secret.pinecone-api-key"),
	fixed("lsv2_pt_", setWord, 43, 43, 3, TypeAPIToken, "secret.langsmith-api-key"),
	fixed("lsv2_sk_", setWord, 43, 43, 3, TypeAPIToken, "secret.langsmith-api-key"),
	fixed("jina_", csAlnum, 60, 60, 3, TypeAPIToken, "secret.jina-api-key"),
	fixed("fc-", setHexL, 32, 32, 3, TypeAPIToken, "secret.firecrawl-api-key"),
	fixed("pat.", setWordD|csDot, 66, 66, 3, TypeAPIToken, "secret.harness-api-key"),

	// Observability and CRM (vendors_uuid.go for the tokens that end in a UUID).
	fixed("hcaik_", csLower|csDigitOnly, 40, 70, 3, TypeAPIToken, "secret.honeycomb-ingest-key"),
	fixed("hcxik_", csLower|csDigitOnly, 40, 70, 3, TypeAPIToken, "secret.honeycomb-ingest-key"),
	uuidToken("xaat-", "secret.axiom-api-token"),
	uuidToken("xapt-", "secret.axiom-personal-token"),
	uuidToken("pat-na1-", "secret.hubspot-private-app-token"),
	uuidToken("pat-eu1-", "secret.hubspot-private-app-token"),
	fixed("sat.", setWordD|csDot, 66, 66, 3, TypeAPIToken, "secret.harness-api-key"),

	{"eyJ", jwt},
	{"moltgate_identity", identityFile},
	{"ed25519:", seed},
	{"x25519:", seed},
}

// skDash handles the sk- family: OpenAI (sk-proj-, sk-svcacct-, sk-admin-, sk-None- and the
// legacy form, all marked T3BlbkFJ when full length), Anthropic (sk-ant-api03-, sk-ant-admin01-,
// 93 characters then AA), OpenRouter (sk-or-v1-), Langfuse (sk-lf-) and the bare sk- keys of
// DeepSeek and the OpenAI-compatible providers.
func skDash(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	if !strings.HasPrefix(s[i:], "sk-") || !leftEdge(s, i) {
		return no(i)
	}
	b := i + 3
	rule := "secret.llm-api-key"
	switch r := s[b:]; {
	case strings.HasPrefix(r, "ant-"):
		rule = "secret.anthropic-api-key"
		b += 4
		// The key's kind and version: api03-, admin01-, oat01-.
		k := b
		for k < len(s) && k-b < 10 && (isLower(s[k]) || isDigit(s[k])) {
			k++
		}
		if k > b && k < len(s) && s[k] == '-' {
			b = k + 1
		}
	case strings.HasPrefix(r, "or-v1-"):
		rule = "secret.openrouter-api-key"
		b += 6
	case strings.HasPrefix(r, "lf-"):
		rule = "secret.langfuse-secret-key"
		b += 3
	default:
		for _, p := range [...]string{"proj-", "svcacct-", "admin-", "None-"} {
			if strings.HasPrefix(r, p) {
				rule = "secret.openai-api-key"
				b += len(p)
				break
			}
		}
	}
	e := span(s, b, setWordD, 400)
	body := s[b:e]
	if !rightEdge(s, e) && !looseEdge(s, e) {
		return no(i)
	}
	switch {
	case rule == "secret.langfuse-secret-key" && uuidBodyToken(body):
		return ok(e, TypeAPIToken, 0.95, rule) // sk-lf- and a UUID, as Langfuse issues them
	case rule == "secret.anthropic-api-key" && len(body) == 95 && strings.HasSuffix(body, "AA") && entropy(body) >= 3:
		return ok(e, TypeAPIToken, 0.97, rule)
	case len(body) >= 40 && strings.Contains(body, "T3BlbkFJ") && !placeholderRun(body):
		return ok(e, TypeAPIToken, 0.97, "secret.openai-api-key")
	case len(body) >= 20 && looseStart(s, i) && !redacted(s, e) && randomish(body):
		return ok(e, TypeAPIToken, 0.9, rule)
	}
	return no(i)
}

// looseBody is the fallback of a prefix rule whose body did not have the vendor's alphabet or
// length: the prefix at i followed, from b, by a random-looking body of at least 16 bytes.
func looseBody(s string, i, b int, set uint16, t Type, rule string) (int, Type, float64, string) {
	e := span(s, b, set|setWordD, 1024)
	if !looseStart(s, i) || !looseEdge(s, e) || redacted(s, e) || !randomish(s[b:e]) {
		return no(i)
	}
	return ok(e, t, 0.85, rule)
}

// orLoose runs a structured check and, when it finds nothing, looseBody after prefix.
func orLoose(check func(*scanCtx, int) (int, Type, float64, string), prefix string, set uint16, rule string) func(*scanCtx, int) (int, Type, float64, string) {
	return func(x *scanCtx, i int) (int, Type, float64, string) {
		if e, t, c, r := check(x, i); e > i {
			return e, t, c, r
		}
		if !strings.HasPrefix(x.s[i:], prefix) || !leftEdge(x.s, i) {
			return no(i)
		}
		b := i + len(prefix)
		// Slack: the letter after xox names the kind (b, p, a, e, r, s, o).
		if prefix == "xox" {
			if b+1 >= len(x.s) || !containsByte("abposre", x.s[b]) || x.s[b+1] != '-' && x.s[b+1] != '.' {
				return no(i)
			}
			b += 2
		}
		return looseBody(x.s, i, b, set, TypeAPIToken, rule)
	}
}

// upperAlnum is a check for prefix + n upper-case letters and digits (New Relic keys).
func upperAlnum(prefix string, n int, rule string) func(*scanCtx, int) (int, Type, float64, string) {
	return func(x *scanCtx, i int) (int, Type, float64, string) {
		s := x.s
		if !strings.HasPrefix(s[i:], prefix) || !leftEdge(s, i) {
			return no(i)
		}
		b := i + len(prefix)
		e := span(s, b, csAlnum, 200)
		if e-b == n && rightEdge(s, e) && entropy(s[b:e]) >= 3 {
			return ok(e, TypeAPIToken, 0.95, rule)
		}
		return looseBody(s, i, b, csAlnum, TypeAPIToken, rule)
	}
}

// looseEdge reports whether a loosely matched body may end at e: not in the middle of a word,
// nor before a file name's extension.
func looseEdge(s string, e int) bool {
	if e >= len(s) {
		return true
	}
	if s[e] == '.' {
		return e+1 >= len(s) || !isAlnum(s[e+1])
	}
	return csTab[s[e]]&(csAlnum|csUnder) == 0
}

// looseStart reports whether a loosely matched token may start at i. It is stricter than
// leftEdge: a prefix glued by '_', '.', '/', '+', '-' or '=' is more often the middle of an
// identifier, a path or a base64 blob than a token.
func looseStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	switch s[i-1] {
	case '_', '.', '/', '+', '-', '=', '\\', '%':
		return s[i-1] == '=' && i >= 2 && isAlnum(s[i-2]) // "KEY=sk-…" is an assignment
	}
	return s[i-1] < 0x80 && !isAlnum(s[i-1])
}

// redacted reports a value cut short for display, followed by "...", "…" or "[redacted]", or
// one part of a template ("eyJhbGciOiJIUzI1NiJ9.<payload>.<signature>").
func redacted(s string, e int) bool {
	r := s[e:min(len(s), e+12)]
	return strings.HasPrefix(r, "..") || strings.HasPrefix(r, "…") || hasFoldPrefix(r, "[redacted") ||
		strings.HasPrefix(r, "***") || strings.HasPrefix(r, ".<") || strings.HasPrefix(r, "<")
}

// randomish reports whether v reads as a random token rather than words, numbers or a
// placeholder: at least 16 bytes, mostly letters and digits of two classes or more, class changes
// at least every sixth letter or digit (identifiers change class once a word), and at least 3
// bits of entropy per byte. With fewer than two digits, upper and lower case must mix as in
// random text (adjacent capitals), not as in CamelCase. UUIDs are identifiers, not tokens.
func randomish(v string) bool {
	n := len(v)
	if n < 16 || placeholderRun(v) || sequential(v) || uuidShape(v) {
		return false
	}
	var lo, up, dg, sw, run, runV, inRuns, vowels int
	prev := 0
	for k := 0; k <= n; k++ {
		cls := 0
		if k < n {
			switch c := v[k]; {
			case isLower(c):
				lo, cls = lo+1, 1
			case isUpper(c):
				up, cls = up+1, 2
			case isDigit(c):
				dg, cls = dg+1, 3
			}
		}
		if cls == 1 {
			run++
			if strings.IndexByte("aeiou", v[k]) >= 0 {
				runV++
			}
		} else {
			if run >= 4 {
				inRuns += run
				vowels += runV
			}
			run, runV = 0, 0
		}
		if cls != 0 {
			if prev != 0 && cls != prev {
				sw++
			}
			prev = cls
		}
	}
	an := lo + up + dg
	if an < 14 || an*4 < n*3 {
		return false
	}
	classes := 0
	for _, k := range [...]int{lo, up, dg} {
		if k > 0 {
			classes++
		}
	}
	if classes < 2 || lo > 0 && sw*6 < an {
		return false
	}
	if up > 0 && lo >= 6 && dg < 3 && inRuns*10 >= lo*6 && vowels*10 >= inRuns*3 {
		// Words in CamelCase: most small letters stand in runs of four or more, a third of
		// them vowels; random letters seldom run that long and hold a vowel in five.
		return false
	}
	switch {
	case dg < 2 && lo == 0:
		// Capitals and a digit, as AWS key ids: random capitals spread over the alphabet.
		if dg == 0 {
			return false
		}
	case dg < 2 && (an < 16 || lo < 4 || up < 4):
		return false
	}
	h := entropy(v)
	return h >= 3 && (lo > 0 || h >= 3.2)
}

// sequential reports a body made of counting runs ("1234567890abcdef", "1234-1234-1234"): six
// ascending bytes in a row, two runs of four, or a quarter of all adjacent pairs ascending.
func sequential(v string) bool {
	up, run, runs := 0, 0, 0
	for k := 1; k < len(v); k++ {
		if v[k] == v[k-1]+1 && isAlnum(v[k]) {
			up++
			run++
			if run == 3 {
				runs++
			}
			if run >= 5 || runs >= 2 {
				return true
			}
		} else {
			run = 0
		}
	}
	return up*4 >= len(v)
}

// wordy reports a body of words rather than random bytes: no digit, and lower case or
// CamelCase (no two capitals side by side).
func wordy(v string) bool {
	lo, up, uu := 0, 0, 0
	for k := 0; k < len(v); k++ {
		switch c := v[k]; {
		case isDigit(c):
			return false
		case isLower(c):
			lo++
		case isUpper(c):
			up++
			if k > 0 && isUpper(v[k-1]) {
				uu++
			}
		}
	}
	return lo > 0 && (up == 0 || uu == 0)
}

// discordWebhook: discord.com/api/webhooks/<numeric id>/<token>.
func discordWebhook(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	k := strings.Index(s[i:min(len(s), i+32)], "/webhooks/")
	if k < 0 {
		return no(i)
	}
	b := i + k + len("/webhooks/")
	e := span(s, b, csDigitOnly, 21)
	if e-b < 15 || e >= len(s) || s[e] != '/' {
		return no(i)
	}
	t := span(s, e+1, setWordD, 100)
	if t-e-1 < 60 {
		return no(i)
	}
	return ok(t, TypeAPIToken, 0.97, "secret.discord-webhook-url")
}

// teamsWebhook: <tenant>.webhook.office.com/webhookb2/<ids>/IncomingWebhook/<hex>/<guid>, and
// the older outlook.office.com/webhook/ form.
func teamsWebhook(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	k := strings.Index(s[i:min(len(s), i+40)], "/webhook")
	if k < 0 {
		return no(i)
	}
	b := i + k + 1
	e := span(s, b, setWordD|csPlusSlash|csDot|csEq, 600)
	p := strings.Index(s[b:e], "/IncomingWebhook/")
	if p < 0 || e-(b+p) < 40 {
		return no(i)
	}
	return ok(e, TypeAPIToken, 0.97, "secret.teams-webhook-url")
}

// uuidShape reports 32 hex digits in groups of 8-4-4-4-12, whatever the separator.
func uuidShape(v string) bool {
	if len(v) != 36 {
		return false
	}
	for k := 0; k < 36; k++ {
		switch k {
		case 8, 13, 18, 23:
			if isAlnum(v[k]) {
				return false
			}
		default:
			if csTab[v[k]]&setHexAny == 0 {
				return false
			}
		}
	}
	return true
}

// publicPrefix reports the prefixes of keys that their issuers publish by design: Stripe
// publishable keys, Mapbox public tokens, Langfuse public keys, Flutterwave public keys, Mailgun
// public validation keys.
func publicPrefix(v string) bool {
	for _, p := range [...]string{"pk_live_", "pk_test_", "pk.eyJ", "pk-lf-", "FLWPUBK", "pubkey-"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// awsKeyID: AKIA (long-term), ASIA (temporary), ABIA, ACCA + 16 capitals and digits 2-7. Ids
// are upper case by construction, so a body of 12 to 24 capitals and digits with 3 bits of
// entropy is one cut or padded.
func awsKeyID(x *scanCtx, i int) (int, Type, float64, string) {
	s := x.s
	if i+4 > len(s) || !leftEdge(s, i) {
		return no(i)
	}
	switch s[i : i+4] {
	case "AKIA", "ASIA", "ABIA", "ACCA":
	default:
		return no(i)
	}
	b := i + 4
	e := span(s, b, csUpperOnly|csDigitOnly, 30)
	if !rightEdge(s, e) || placeholderRun(s[b:e]) {
		return no(i)
	}
	switch n := e - b; {
	case n == 16 && entropy(s[b:e]) >= 2.5:
		return ok(e, TypeCloudToken, 0.95, "secret.aws-access-key")
	case n >= 12 && n <= 24 && looseStart(s, i) && entropy(s[b:e]) >= 3 && !sequential(s[b:e]):
		return ok(e, TypeCloudToken, 0.85, "secret.aws-access-key")
	}
	return no(i)
}
