import brawl.kit.BrawlKit;

/** A bot that thinks past every deadline: the kit must answer the default option in time for it. */
public final class SlowBot implements BrawlKit.Bot {
  @Override
  public String[] choose(BrawlKit.Turn turn) {
    try {
      Thread.sleep(Math.max(0, turn.millisLeft()) + 2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new String[] {turn.request.getOptions(0).getId(), "java: too late"};
  }

  public static void main(String[] args) {
    System.exit(BrawlKit.run(BrawlKit.parseFlags(args), new SlowBot()));
  }
}
