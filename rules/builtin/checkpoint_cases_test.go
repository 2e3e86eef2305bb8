package builtin_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/model"
)

// Cases of the checkpoint and notebook rules (BF020-BF023), joined to the
// catalogue's firing and quiet lists.
func init() {
	firing = append(firing, checkpointFiring...)
	quiet = append(quiet, checkpointQuiet...)
}

// group is BF-1's replay consumer group, parked with no members.
func group(mods ...func(*model.Artifact)) model.Artifact {
	a := model.Artifact{Kind: model.KindCheckpoint, System: "kafka", Source: srcWH, Scope: "bf_1_replay",
		URI: "kafka://w/groups/bf_1_replay", Name: "bf_1_replay", BackfillID: "BF-1", State: model.StateActive,
		Attributes: model.TagsOf(map[string]string{model.AttrCheckpointType: "consumer_group", model.AttrMembers: "0", model.AttrLag: "40",
			model.AttrOffsets: "orders/0=81234"})}
	for _, m := range mods {
		m(&a)
	}
	return a
}

func notebook(mods ...func(*model.Artifact)) model.Artifact {
	a := model.Artifact{Kind: model.KindNotebook, System: "notebooks", Source: srcWH, Scope: "fix/bf_1.ipynb",
		URI: "notebooks://w/fix/bf_1.ipynb", Name: "fix/bf_1.ipynb", BackfillID: "BF-1", State: model.StateActive}
	for _, m := range mods {
		m(&a)
	}
	return a
}

func withKey(id string) func(*model.Artifact) {
	return func(a *model.Artifact) {
		a.SetAttr(model.AttrSecrets, "gcp-service-account-key\tcell 2 line 4\t3f9a1c0d2b7e")
		a.SetAttr(model.AttrKeyIDs, id)
	}
}

func gcpKey(id string, s model.State) model.Artifact {
	return model.Artifact{Kind: model.KindCredential, System: "gcpiam", Source: srcIAM, Scope: "p/serviceAccounts",
		URI: "gcpiam://p/serviceAccounts/sa@p.iam.gserviceaccount.com/keys/" + id, Name: "key " + id, State: s}
}

// awsKeyID is an AWS access key id as an IAM listing gives it; a notebook
// names it by its hash only.
const awsKeyID = "AKIAQ7ZBX4MJWGTK2VNS"

func withAWSKey(a *model.Artifact) {
	h := model.ShortHash(awsKeyID)
	a.SetAttr(model.AttrSecrets, "aws-key-pair\tcell 1 source line 1 (access key id); cell 1 source line 2 (secret access key)\t"+h)
	a.SetAttr(model.AttrAWSKeys, h)
}

// awsIAM adds an AWS IAM source, as the awsiam collector reports it, with
// the key of awsKeyID in state s (none when s is "").
func awsIAM(e *estate, status model.CoverageStatus, s model.State) *estate {
	e.est.Coverage = append(e.est.Coverage, model.Coverage{Source: "aws", System: "awsiam", Status: status})
	if s == "" {
		return e
	}
	return e.artifact(model.Artifact{Kind: model.KindCredential, System: "awsiam", Source: "aws", Scope: "123456789012",
		URI: "awsiam://aws/123456789012/user/bf-runner/key/" + awsKeyID, Name: "bf-runner key", State: s})
}

func checkpointRecord(r *model.DecisionRecord) {
	r.Checkpoint = &model.CheckpointRecord{FinalRange: "orders/0=81234", ReplayID: "bf_1_replay"}
}

var checkpointFiring = []ruleCase{
	{rule: "BF020", name: "group held, record without its range", want: 1, check: mentions("final range and replay id"),
		build: func() *estate { return newEstate().plan(completed).record(fullRecord("BF-1")).artifact(group()) }},
	{rule: "BF021", name: "parked group", want: 1, check: all(severity(model.SeverityMedium), mentions("lag 40")),
		build: func() *estate { return newEstate().plan(completed).artifact(group()) }},
	{rule: "BF021", name: "a replay consumer still running is high", want: 1, check: all(severity(model.SeverityHigh), mentions("still running")),
		build: func() *estate { return newEstate().plan(completed).artifact(group(attr(model.AttrMembers, "2"))) }},
	{rule: "BF021", name: "far behind the log end is high", want: 1, check: all(severity(model.SeverityHigh), mentions("behind the log end")),
		build: func() *estate { return newEstate().plan(completed).artifact(group(attr(model.AttrLag, "2500000"))) }},
	{rule: "BF021", name: "snapshot past its expiry", want: 1, check: mentions("snapshot bf-1-seek"),
		build: func() *estate {
			return newEstate().plan(completed).artifact(group(func(a *model.Artifact) {
				a.URI, a.Name, a.Attributes = "pubsub://p/snapshots/bf-1-seek", "bf-1-seek", model.TagsOf(map[string]string{model.AttrCheckpointType: "snapshot"})
				a.ExpiresAt = model.At(done.Add(24 * time.Hour))
			}))
		}},
	{rule: "BF022", name: "notebook with a key", want: 1, check: all(severity(model.SeverityHigh), mentions("gcp-service-account-key in cell 2 line 4 (sha256 3f9a1c0d2b7e)")),
		build: func() *estate {
			return newEstate().plan(completed).artifact(notebook(withKey("8a1f"))).artifact(gcpKey("8a1f", model.StateDisabled))
		}},
	{rule: "BF022", name: "the key is still active: critical", want: 1, check: all(severity(model.SeverityCritical), mentions("still active")),
		build: func() *estate {
			return newEstate().plan(running).artifact(notebook(withKey("8a1f"))).artifact(gcpKey("8a1f", model.StateActive))
		}},
	{rule: "BF022", name: "the key is seen nowhere and every source answered: high, and not claimed revoked", want: 1,
		check: all(severity(model.SeverityHigh), mentions("key 8a1f: not among the service-account keys that source iam listed: revoked, or of an account whose keys were not read")),
		build: func() *estate { return newEstate().plan(completed).artifact(notebook(withKey("8a1f"))) }},
	{rule: "BF022", name: "the key is seen nowhere and a source did not answer: not known revoked, critical", want: 1,
		check: all(severity(model.SeverityCritical), mentions("not known to be revoked")),
		build: func() *estate {
			return newEstate().plan(completed).artifact(notebook(withKey("8a1f"))).degrade(srcIAM, "p")
		}},
	{rule: "BF023", name: "notebook its plan lists in assets_to_remove", want: 1, check: mentions("lists it in assets_to_remove"),
		build: func() *estate {
			return newEstate().plan(completed, func(b *model.Backfill) {
				b.AssetsToRemove = append(b.AssetsToRemove, "notebooks://w/fix/bf_1.ipynb")
			}).artifact(notebook())
		}},
	{rule: "BF023", name: "notebook in part too large to scan", want: 1, check: mentions("nobody can say it keeps no credential"),
		build: func() *estate { return newEstate().plan(completed).artifact(notebook(attr("unscanned", "2"))) }},
	// BF021's ladder, rung by rung.
	{rule: "BF021", name: "a group at the log end with no members is low", want: 1, check: all(severity(model.SeverityLow), mentions("nothing is left to replay")),
		build: func() *estate { return newEstate().plan(completed).artifact(group(attr(model.AttrLag, "0"))) }},
	{rule: "BF021", name: "behind the log end on customer data is high", want: 1, check: all(severity(model.SeverityHigh), mentions("touches customer data")),
		build: func() *estate {
			return newEstate().plan(completed, sensitive).artifact(group(attr(model.AttrLag, "870")))
		}},
	{rule: "BF021", name: "at the log end on customer data stays low", want: 1, check: severity(model.SeverityLow),
		build: func() *estate {
			return newEstate().plan(completed, sensitive).artifact(group(attr(model.AttrLag, "0")))
		}},
	{rule: "BF021", name: "a replay consumer still running on customer data is critical", want: 1, check: severity(model.SeverityCritical),
		build: func() *estate {
			return newEstate().plan(completed, sensitive).artifact(group(attr(model.AttrMembers, "1"), attr(model.AttrLag, "0")))
		}},
	{rule: "BF021", name: "a group whose lag was not read is medium", want: 1, check: severity(model.SeverityMedium),
		build: func() *estate {
			return newEstate().plan(completed).artifact(group(func(a *model.Artifact) { a.Attributes = a.Attributes.Without(model.AttrLag) }))
		}},
	// BF022's ladder and the sources it asks.
	{rule: "BF022", name: "a revoked key on classified data is critical, like BF004", want: 1, check: all(severity(model.SeverityCritical), mentions("touches financial data")),
		build: func() *estate {
			return newEstate().plan(completed, classified).artifact(notebook(withKey("8a1f"))).artifact(gcpKey("8a1f", model.StateDisabled))
		}},
	{rule: "BF022", name: "a source that lists no keys failing says nothing about the key: high", want: 1,
		check: func(t *testing.T, fs []model.Finding) {
			severity(model.SeverityHigh)(t, fs)
			for _, f := range fs {
				if strings.Contains(f.Message+strings.Join(f.Evidence, " "), "not known to be revoked") {
					t.Errorf("BF022 blames an unrelated source: %s %v", f.Message, f.Evidence)
				}
			}
		},
		build: func() *estate {
			return newEstate().plan(completed).artifact(notebook(withKey("8a1f"))).degrade(srcSched, "").degrade(srcWH, "p")
		}},
	{rule: "BF022", name: "no source lists cloud keys: unknown, said so, severity from the notebook", want: 1,
		check: all(severity(model.SeverityHigh), mentions("whether it is revoked is unknown")),
		build: func() *estate {
			e := newEstate().plan(completed).artifact(notebook(withKey("8a1f")))
			e.est.Coverage = slices.DeleteFunc(e.est.Coverage, func(c model.Coverage) bool { return c.Source == srcIAM })
			return e
		}},
	{rule: "BF022", name: "an AWS key pair whose key IAM lists active: critical, the key named by its hash", want: 1,
		check: all(severity(model.SeverityCritical), mentions("AWS access key with id hash "+model.ShortHash(awsKeyID)+" is still active (awsiam://aws/")),
		build: func() *estate {
			return awsIAM(newEstate().plan(completed).artifact(notebook(withAWSKey)), model.CoverageOK, model.StateActive)
		}},
	{rule: "BF022", name: "an AWS key IAM lists inactive: high", want: 1, check: all(severity(model.SeverityHigh), notMentions("still active"), notMentions("not known"), notMentions("not among")),
		build: func() *estate {
			return awsIAM(newEstate().plan(completed).artifact(notebook(withAWSKey)), model.CoverageOK, model.StateDisabled)
		}},
	{rule: "BF022", name: "an AWS key not seen while AWS IAM did not answer fully: not known revoked, critical", want: 1,
		check: all(severity(model.SeverityCritical), mentions("source aws, which can list AWS access keys, did not answer fully")),
		build: func() *estate {
			return awsIAM(newEstate().plan(completed).artifact(notebook(withAWSKey)), model.CoverageDegraded, "")
		}},
	{rule: "BF022", name: "Google IAM answering says nothing of an AWS key: unknown, high", want: 1,
		check: all(severity(model.SeverityHigh), mentions("no source of this run lists AWS access keys")),
		build: func() *estate { return newEstate().plan(completed).artifact(notebook(withAWSKey)) }},
	{rule: "BF022", name: "an inventory that exported keys can see them: failing, the key is not known to be revoked", want: 1,
		check: all(severity(model.SeverityCritical), mentions("source exports")),
		build: func() *estate {
			e := newEstate().plan(completed).artifact(notebook(withKey("8a1f")))
			e.est.Coverage = slices.DeleteFunc(e.est.Coverage, func(c model.Coverage) bool { return c.Source == srcIAM })
			e.est.Coverage = append(e.est.Coverage, model.Coverage{Source: "exports", System: "inventory", Status: model.CoverageDegraded,
				Errors: []model.ScopeError{{Scope: "inventory/iam.yaml", Error: "unreadable"}}})
			k := gcpKey("other", model.StateActive)
			k.Source = "exports"
			return e.artifact(k)
		}},
}

var checkpointQuiet = []ruleCase{
	{rule: "BF023", name: "a notebook without credentials is the fix's evidence",
		build: func() *estate { return newEstate().plan(completed).artifact(notebook()) }},
	{rule: "BF014", name: "a notebook is not machinery to list",
		build: func() *estate { return newEstate().plan(completed).artifact(notebook()) }},
	{rule: "BF020", name: "the record holds the range and replay id",
		build: func() *estate {
			return newEstate().plan(completed).record(fullRecord("BF-1"), checkpointRecord).artifact(group())
		}},
	{rule: "BF020", name: "within the grace period", now: done.Add(48 * time.Hour),
		build: func() *estate { return newEstate().plan(completed).artifact(group()) }},
	{rule: "BF021", name: "replay still running",
		build: func() *estate { return newEstate().plan(running).artifact(group()) }},
	{rule: "BF021", name: "a snapshot that expires by itself",
		build: func() *estate {
			return newEstate().plan(completed).artifact(group(func(a *model.Artifact) {
				a.Attributes = model.TagsOf(map[string]string{model.AttrCheckpointType: "snapshot"})
				a.ExpiresAt = model.At(now.Add(72 * time.Hour))
			}))
		}},
	{rule: "BF022", name: "notebook without a credential",
		build: func() *estate { return newEstate().plan(completed).artifact(notebook()) }},
	{rule: "BF023", name: "a notebook with a credential is BF022's",
		build: func() *estate { return newEstate().plan(completed).artifact(notebook(withKey("8a1f"))) }},
	{rule: "BF023", name: "within the grace period", now: done.Add(72 * time.Hour),
		build: func() *estate { return newEstate().plan(completed).artifact(notebook()) }},
}
