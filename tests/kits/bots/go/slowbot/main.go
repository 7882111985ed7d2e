// A bot that thinks past every deadline: the kit must answer the default option in time for it.
package main

import (
	"os"
	"time"

	"brawlkit/brawl"
)

type slowBot struct{}

func (slowBot) Choose(t *brawl.Turn) (string, string) {
	time.Sleep(t.TimeLeft() + 2*time.Second)
	return t.Request.Options[0].Id, "go: too late"
}

func main() {
	os.Exit(brawl.Run(brawl.ParseFlags("slowbot"), slowBot{}))
}
