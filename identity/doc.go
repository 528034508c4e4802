// Package identity holds agent and organisation identities, the
// certificates an organisation signs for its agents, the store of trusted
// organisations, and the trust levels of the MoltSpeak security model.
//
// An organisation's gateway key signs two kinds of certificate: an identity
// certificate binds an agent id, its org, its Ed25519 and X25519 keys and an
// expiry; a capability certificate binds an agent to one capability until an
// expiry. A peer that has pinned the organisation's key can check both
// without asking anyone.
package identity
