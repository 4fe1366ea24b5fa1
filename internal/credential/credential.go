// Package credential holds the named bearer tokens of the API and the
// dashboard: their type, which never prints the token, and the shortest
// token accepted. internal/config parses them from the environment; the
// packages that check them take them in their plain Config.
package credential

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// MinTokenLength is the shortest bearer token accepted: a short token can
// be guessed, and a throttle per client address does not stop a botnet.
const MinTokenLength = 16

// Credential is one named bearer token. Its String, GoString, LogValue and
// MarshalJSON methods hide the token, so a Credential can be printed with %v,
// %+v or %#v, logged with slog or encoded as JSON without leaking it.
type Credential struct {
	Name  string
	Token string
}

// String returns "name:***".
func (c Credential) String() string { return c.Name + ":***" }

// GoString hides the token from %#v.
func (c Credential) GoString() string {
	return fmt.Sprintf("credential.Credential{Name:%q, Token:\"***\"}", c.Name)
}

// LogValue hides the token from log/slog, whose JSON handler would otherwise
// marshal the struct's fields.
func (c Credential) LogValue() slog.Value { return slog.StringValue(c.String()) }

// MarshalJSON hides the token from encoding/json (and so from slog's JSON
// handler when a Credential sits inside a slice or struct).
func (c Credential) MarshalJSON() ([]byte, error) { return json.Marshal(c.String()) }
