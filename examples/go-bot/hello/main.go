// The Go "hello bot": plays every game with one simple rule.
//
// Super Fantasy Brawl: the option that hits hardest (its params' `strength`), else the first.
// ScrumBrawl: the first attack, else the first move, else the first option. The note says which
// round the bot saw (from the observation the kit rebuilt from the referee's patches).
//
//	hello-bot --server 127.0.0.1:50051 --token "$BRAWL_TOKEN" --games scrumbrawl
package main

import (
	"fmt"
	"os"

	"brawlkit/brawl"
	botv1 "brawlkit/gen/botv1"
)

type helloBot struct{}

// score rates an option by the rule above: higher is better, ties go to the earlier option.
func score(game string, option *botv1.Option) int {
	switch game {
	case "superfantasybrawl":
		return int(option.GetParams().GetSuperfantasybrawl().GetStrength())
	case "scrumbrawl":
		switch option.Kind {
		case "attack":
			return 2
		case "move":
			return 1
		}
	}
	return 0
}

func (helloBot) Choose(t *brawl.Turn) (string, string) {
	options := t.Request.Options
	best := options[0]
	for _, o := range options[1:] {
		if score(t.Game, o) > score(t.Game, best) {
			best = o
		}
	}
	round, _ := t.Observation["round"].(float64) // JSON numbers are float64 in Go
	return best.Id, fmt.Sprintf("go: round %d", int(round))
}

func main() {
	cfg := brawl.ParseFlags("brawl-go-kit/1")
	os.Exit(brawl.Run(cfg, helloBot{}))
}
