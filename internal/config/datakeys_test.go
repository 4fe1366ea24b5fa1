package config

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/keyring"
)

func b64(fill byte) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{fill}, 32)) }

func TestFromEnv_DataKeys_IsARingInOrder_FirstSeals(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(map[string]string{"RELAYOPS_DATA_KEYS": "2027-01:" + b64(2) + ", 2026-06:" + b64(1)}))
	require.NoError(t, err)
	require.Equal(t, []keyring.Key{
		{ID: "2027-01", Secret: bytes.Repeat([]byte{2}, 32)},
		{ID: "2026-06", Secret: bytes.Repeat([]byte{1}, 32)},
	}, c.DataKeys)
}

func TestFromEnv_DataKey_IsAOneKeyRingNamedDefault(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(map[string]string{"RELAYOPS_DATA_KEY": b64(7)}))
	require.NoError(t, err)
	require.Equal(t, []keyring.Key{{ID: keyring.LegacyID, Secret: bytes.Repeat([]byte{7}, 32)}}, c.DataKeys)
	c, err = FromEnv(env(nil))
	require.NoError(t, err)
	require.Empty(t, c.DataKeys, "no key: stored in clear")
}

func TestFromEnv_DataKeyAndDataKeys_BothSet_FailsNamingBoth(t *testing.T) {
	t.Parallel()
	_, err := FromEnv(env(map[string]string{"RELAYOPS_DATA_KEY": b64(1), "RELAYOPS_DATA_KEYS": "new:" + b64(2)}))
	require.Error(t, err)
	require.Contains(t, err.Error(), "RELAYOPS_DATA_KEYS")
	require.Contains(t, err.Error(), "RELAYOPS_DATA_KEY ")
	require.NotContains(t, err.Error(), b64(1))
}

func TestFromEnv_BadDataKeys_FailNamingTheEntryNotTheKey(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]string{
		b64(1):                           "RELAYOPS_DATA_KEYS: entry 1 must be id:base64",
		"a:" + b64(1) + ",a:" + b64(2):   `RELAYOPS_DATA_KEYS: key ID "a" is used twice`,
		"a:" + b64(1) + ",b c:" + b64(2): "RELAYOPS_DATA_KEYS: entry 2 must be id:base64",
		"a:" + base64.StdEncoding.EncodeToString([]byte("short")): `RELAYOPS_DATA_KEYS (key "a"): must decode to exactly 32 bytes, got 5`,
		"a:not base64!": `RELAYOPS_DATA_KEYS (key "a"): must be standard base64 (value not shown)`,
	} {
		_, err := FromEnv(env(map[string]string{"RELAYOPS_DATA_KEYS": value}))
		require.Error(t, err, value)
		require.Contains(t, err.Error(), want)
		require.NotContains(t, err.Error(), b64(1))
		require.NotContains(t, err.Error(), b64(2))
	}
}
