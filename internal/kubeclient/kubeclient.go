// Package kubeclient holds what every collector that reads a Kubernetes
// API server needs of client-go, so that they stay in step: finding the
// credentials (Config), bounding each call and guarding client-go against
// a hostile or broken answer (Bound), and which failures to retry
// (Retryable).
package kubeclient

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bfaudit/bfaudit/internal/safefile"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Config finds credentials the standard way: the kubeconfig file named
// (a leading ~/ is the home directory), else the pod's service account
// when no context is asked for either, else $KUBECONFIG / ~/.kube/config.
// context picks a kubeconfig context other than the current one. The
// error does not name the config key: the caller prefixes its own.
func Config(kubeconfig, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = expandHome(kubeconfig)
		// A pipe or device named as the kubeconfig would block or fill
		// memory when client-go reads it.
		if err := safefile.Check(rules.ExplicitPath); err != nil {
			return nil, err
		}
	} else if context == "" {
		if cfg, err := rest.InClusterConfig(); err == nil {
			return cfg, nil
		}
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		where := "$KUBECONFIG or ~/.kube/config (not running in a cluster)"
		if kubeconfig != "" {
			where = rules.ExplicitPath
		}
		return nil, fmt.Errorf("no usable configuration from %s: %v", where, err)
	}
	return cfg, nil
}

func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}
