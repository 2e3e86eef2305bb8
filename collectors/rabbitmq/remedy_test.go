package rabbitmq

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
	"github.com/bfaudit/bfaudit/testkit/remedytest"
)

const rabbitAPIEnv = "BFAUDIT_TEST_RABBITMQ_API"

// The rendered rabbitmqadmin command, run by sh against the real broker,
// deletes exactly the queue named, whatever its name holds.
func TestRabbitmqadminAgainstBroker(t *testing.T) {
	api := os.Getenv(rabbitAPIEnv)
	if api == "" {
		t.Skipf("RabbitMQ tests skipped: set %s, e.g. %s=http://guest:guest@127.0.0.1:15672", rabbitAPIEnv, rabbitAPIEnv)
	}
	if _, err := exec.LookPath("rabbitmqadmin"); err != nil {
		t.Skip("rabbitmqadmin not installed")
	}
	u, err := url.Parse(api)
	if err != nil {
		t.Fatal(err)
	}
	user := u.User
	u.User = nil
	pass, _ := user.Password()
	call := func(method, vhost, name string) int {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, method, u.String()+"/api/queues/"+url.PathEscape(vhost)+"/"+url.PathEscape(name), strings.NewReader(`{"durable":false,"auto_delete":false}`))
		req.SetBasicAuth(user.Username(), pass)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tag := remedytest.RandomTag(t)
	for _, name := range remedytest.HostileNames {
		if name == "" || strings.ContainsAny(name, "\n\t") {
			continue // the management API refuses control characters in names
		}
		q := tag + name
		neighbour := tag + "keep"
		for _, n := range []string{q, neighbour} {
			if code := call(http.MethodPut, "/", n); code/100 != 2 {
				t.Fatalf("create queue %q: HTTP %d", n, code)
			}
		}
		t.Cleanup(func() { call(http.MethodDelete, "/", q); call(http.MethodDelete, "/", neighbour) })
		a := model.Artifact{Kind: model.KindQueue, System: "rabbitmq", URI: "rabbitmq://b/%2F/queue/" + url.PathEscape(q),
			Attributes: model.TagsOf(map[string]string{model.AttrAPIURL: u.String()})}
		r, _ := remedy.BuildWith(remedy.Remove(model.StepRetired), model.Finding{}, remedy.Facts{Artifact: &a})
		cmd := exec.Command("sh", "-c", "set -eu\n"+r.Actions[0].Shell)
		cmd.Dir = t.TempDir()
		// rabbitmqadmin takes credentials from its own flags or config,
		// never from the command bfaudit prints.
		cmd.Env = append(os.Environ(), "HOME="+cmd.Dir)
		if err := os.WriteFile(cmd.Dir+"/.rabbitmqadmin.conf", []byte("[default]\nusername = "+user.Username()+"\npassword = "+pass+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%q: %v\n%s\n%s", name, err, out, r.Actions[0].Shell)
		}
		if code := call(http.MethodGet, "/", q); code != http.StatusNotFound {
			t.Errorf("%q: queue still there (HTTP %d)", name, code)
		}
		if code := call(http.MethodGet, "/", neighbour); code != http.StatusOK {
			t.Errorf("%q: the neighbour queue went too (HTTP %d)", name, code)
		}
		call(http.MethodDelete, "/", neighbour)
	}
}
