package rabbitmq

import (
	"net/url"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

func init() {
	remedy.RegisterSystem("rabbitmq", remedy.System{Examples: examples, Remove: rabbitmqRemoval, Acts: remedy.ActsOn(newRabbitMQ)})
}

// rabbitFlags points rabbitmqadmin at the management API the artifact was
// read from, when known (api_url, without credentials: rabbitmqadmin takes
// them from ~/.rabbitmqadmin.conf or -u/-p).
func rabbitFlags(a *model.Artifact) []string {
	var flags []string
	if u, err := url.Parse(a.Attr(model.AttrAPIURL)); err == nil && u.Host != "" {
		flags = append(flags, remedy.Flag("--host", u.Hostname()))
		if p := u.Port(); p != "" {
			flags = append(flags, remedy.Flag("--port", p))
		}
		if u.Scheme == "https" {
			flags = append(flags, "--ssl")
		}
		if u.Path != "" && u.Path != "/" {
			flags = append(flags, remedy.Flag("--path-prefix", u.Path))
		}
	}
	return flags
}

func rabbitmqRemoval(r *remedy.Remedy, a *model.Artifact) {
	o, ok := ParseRabbitMQ(a)
	if !ok {
		return
	}
	flags := append(rabbitFlags(a), remedy.Flag("--vhost", o.Vhost))
	what, name := "queue", remedy.DeleteQueue
	if o.Exchange {
		what, name = "exchange", remedy.DeleteExchange
	}
	// rabbitmqadmin takes the name as name=<value>, split at the first
	// '=': the whole word is quoted, so the value arrives as it is.
	r.Actions = append(r.Actions, remedy.Action{Name: name, Step: model.StepRetired, Resolves: true,
		Summary: "delete " + what + " " + o.Name + " in vhost " + o.Vhost,
		Shell:   remedy.Command([]string{"rabbitmqadmin"}, flags, "delete", what, "name="+o.Name)})
	if !o.Exchange && a.Attr(model.AttrMessages) != "" && a.Attr(model.AttrMessages) != "0" {
		r.Notes = append(r.Notes, "messages still in the queue are lost with it: drain them first if anyone needs them")
	}
}

// examples are artifacts as this collector emits them, on which
// docs/rules.md shows the rules' fixes (remedy.ExampleOn names them).
var examples = map[string]model.Artifact{
	"rabbit-queue": {Kind: model.KindQueue, System: "rabbitmq", Source: "broker", State: model.StateActive,
		URI: "rabbitmq://broker/%2F/queue/bf_1234.retry", Name: "bf_1234.retry",
		Attributes: model.Attrs(model.AttrMessages, "0", model.AttrAPIURL, "http://rabbitmq.internal:15672")},
}
