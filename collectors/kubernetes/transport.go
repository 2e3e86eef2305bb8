package kubernetes

import (
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/kubeclient"
	"k8s.io/client-go/rest"
)

// maxMessage caps the API's error message kept in an error.
const maxMessage = 200

// bound gives every call the collector's timeout and puts the guard every
// Kubernetes reader shares between client-go and the network (see
// kubeclient.Bound).
func bound(cfg *rest.Config, timeout time.Duration) {
	kubeclient.Bound(cfg, timeout, capMessage)
}

// capMessage folds the API's (redacted) error message onto one line and
// cuts it to maxMessage bytes, on a character boundary.
func capMessage(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
