package pii

import "testing"

// TestEnvironmentReferences: a secret's key whose value names the environment variable to read
// it from holds no secret; a literal beside such a reference still counts.
func TestEnvironmentReferences(t *testing.T) {
	sc := mustScanner(t)
	for _, text := range []string{
		"environment_variables:\n  LANGFUSE_SECRET_KEY: os.environ/LANGFUSE_SECRET_KEY\n  HONEYCOMB_API_KEY: os.environ/HONEYCOMB_API_KEY\n",
		"model_list:\n  - litellm_params:\n      api_key: os.environ/AZURE_API_KEY\n",
		"$headers = @{ 'X-Api-Key' = $env:DATADOG_API_KEY }\napi_token: $env:SERVICE_TOKEN",
		"secret_key: env:STRIPE_SECRET_KEY",
	} {
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q reported: %v", text, fs)
		}
	}
	text := "api_key: os.environ/AZURE_API_KEY\nsecret_key: Zx8qLm2Vt9Rk4Pw7Jn3B\n"
	if !hasType(sc.ScanText(text), TypePrivateKey) && !hasType(sc.ScanText(text), TypeSecret) {
		t.Errorf("%q: the literal secret not found", text)
	}
}
