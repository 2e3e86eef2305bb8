// Package slack posts bfaudit's digest for platform leads to a Slack
// channel, and optionally one message per owner listing their items.
//
// The digest is Block Kit within Slack's limits (50 blocks a message, 3000
// characters a text); what does not fit continues in threaded replies,
// never cut. Everything taken from the estate is escaped so an artifact
// named "<!channel>" pings no one. With a history store the digest is
// posted once per period even when the audit reruns or two audits run at
// once.
package slack
