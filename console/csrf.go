package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// CSRF tokens are stateless synchronizer tokens: window.HMAC(secret,
// operator, window), where window counts CSRFWindow periods and secret is
// derived from the operator's own credential (Principal.Secret). A page
// embeds a fresh token in every form; a POST must bring back one of the
// current or the previous window. Another site can make the browser send the
// operator's Basic credentials, but it cannot read a page to learn a token,
// and it cannot compute one without the credential.

// csrfField is the form field carrying the token.
const csrfField = "csrf"

func (c *Console) window() int64 {
	return c.cfg.Clock.Now().UnixNano() / int64(c.cfg.CSRFWindow)
}

func csrfMAC(p Principal, window int64) []byte {
	m := hmac.New(sha256.New, p.Secret)
	m.Write([]byte("relayops console csrf\x00" + p.Name + "\x00" + strconv.FormatInt(window, 10)))
	return m.Sum(nil)
}

// csrfToken is the token of p's forms now.
func (c *Console) csrfToken(p Principal) string {
	w := c.window()
	return strconv.FormatInt(w, 10) + "." + base64.RawURLEncoding.EncodeToString(csrfMAC(p, w))
}

// validCSRF checks a submitted token for p.
func (c *Console) validCSRF(p Principal, token string) bool {
	ws, mac, ok := strings.Cut(token, ".")
	if !ok || len(p.Secret) == 0 {
		return false
	}
	w, err := strconv.ParseInt(ws, 10, 64)
	if err != nil {
		return false
	}
	if now := c.window(); w != now && w != now-1 {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(mac)
	return err == nil && hmac.Equal(got, csrfMAC(p, w))
}

// sameOrigin refuses requests a browser marks as coming from another site,
// before the token is even checked: Sec-Fetch-Site, and Origin when sent.
func sameOrigin(r *http.Request) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}
