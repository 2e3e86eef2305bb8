package model

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Estimate is what a warehouse says, before a replay, about what the
// plan will rewrite and cost: the partitions of each target in the
// plan's range, and a dry run of the plan's queries. `plan check --live`
// asks every source that can answer (collectors.Estimator).
type Estimate struct {
	// Source is the configured source that answered.
	Source string `json:"source"`
	// Rewrites are the plan's targets this source holds.
	Rewrites []TableSpan `json:"rewrites"`
	// Queries are the dry runs of the plan's queries.
	Queries []QueryCost `json:"queries"`
	// PricePerTiB is the on-demand price the source's `price_per_tib`
	// gives (USD), by which bytes become money; 0 when not set.
	PricePerTiB float64 `json:"price_per_tib,omitempty"`
	// Error says why the source could not be asked: what it would have
	// said of the plan is unknown (not nothing), and the preview
	// incomplete.
	Error string `json:"error,omitempty"`
}

// TableSpan is one target table and what of it lies in the plan's range.
type TableSpan struct {
	Table string `json:"table"`
	// Partitioning is the table's time partitioning (DAY, HOUR, MONTH,
	// YEAR), "" for a table that is not partitioned: the replay then
	// rewrites the whole table.
	Partitioning string `json:"partitioning,omitempty"`
	Partitions   int    `json:"partitions"`
	Rows         int64  `json:"rows"`
	Bytes        int64  `json:"bytes"`
	// Error says why the table could not be read; the other fields are then zero.
	Error string `json:"error,omitempty"`
}

// QueryCost is the dry run of one of the plan's queries.
type QueryCost struct {
	// Query names the plan's key: validation_query or replay_query.
	Query string `json:"query"`
	Bytes int64  `json:"bytes"`
	// Intervals is how many intervals the replay query was dry-run for
	// (one per day of the range), Sampled how many of them were asked when
	// the range was too long to ask each: Bytes then scales the sample up.
	Intervals int `json:"intervals,omitempty"`
	Sampled   int `json:"sampled,omitempty"`
	// Error is the dry run's own refusal (bad SQL, a missing table).
	Error string `json:"error,omitempty"`
}

// ReplayBytes is what the replay is expected to process: the replay
// query's dry run when the plan names one, else the bytes of the
// partitions it rewrites; ok is false when neither is known.
func (e *Estimate) ReplayBytes() (bytes int64, ok bool) {
	if e == nil {
		return 0, false
	}
	for _, q := range e.Queries {
		if q.Query == "replay_query" && q.Error == "" {
			return q.Bytes, true
		}
	}
	for _, t := range e.Rewrites {
		if t.Error == "" {
			bytes += t.Bytes
			ok = true
		}
	}
	return bytes, ok
}

// Dollars is what bytes cost at price per TiB.
func Dollars(bytes int64, price float64) float64 {
	return float64(bytes) / (1 << 40) * price
}

// A plan's cost_estimate is free text; these read it as money ("$40
// on-demand", "120 USD", "USD 1,200") or as bytes ("2 TB", "1.5 TiB
// scanned", "800 GB").
var (
	moneyPattern = regexp.MustCompile(`(?i)(?:\$|usd\s*)\s*([\d,]+(?:\.\d+)?)\s*([km])?\b|([\d,]+(?:\.\d+)?)\s*([km])?\s*(?:usd|dollars?)\b`)
	bytesPattern = regexp.MustCompile(`(?i)([\d,]+(?:\.\d+)?)\s*(k|m|g|t|p)(i)?b\b`)
)

// CostClaim is a plan's cost_estimate read as a number: Dollars or
// Bytes, whichever it states (money first).
type CostClaim struct {
	Dollars float64
	Bytes   int64
}

// ParseCostEstimate reads a cost_estimate; ok is false when it states
// neither money nor bytes.
func ParseCostEstimate(s string) (c CostClaim, ok bool) {
	if m := moneyPattern.FindStringSubmatch(s); m != nil {
		num, scale := m[1], m[2]
		if num == "" {
			num, scale = m[3], m[4]
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
		if err == nil {
			switch strings.ToLower(scale) {
			case "k":
				v *= 1e3
			case "m":
				v *= 1e6
			}
			return CostClaim{Dollars: v}, true
		}
	}
	if m := bytesPattern.FindStringSubmatch(s); m != nil {
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if err == nil {
			exp := strings.Index("kmgtp", strings.ToLower(m[2])) + 1
			base := 1000.0
			if m[3] != "" {
				base = 1024
			}
			return CostClaim{Bytes: int64(v * math.Pow(base, float64(exp)))}, true
		}
	}
	return CostClaim{}, false
}

// FormatBytes writes bytes in binary units, as BigQuery bills them.
func FormatBytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit && exp < 4; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTP"[exp])
}
