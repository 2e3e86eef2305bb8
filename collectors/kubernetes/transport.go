package kubernetes

import (
	"time"

	"github.com/bfaudit/bfaudit/internal/kubeclient"
	"k8s.io/client-go/rest"
)

// bound gives every call the collector's timeout and puts the guard every
// Kubernetes reader shares between client-go and the network (see
// kubeclient.Bound).
func bound(cfg *rest.Config, timeout time.Duration) {
	kubeclient.Bound(cfg, timeout)
}
