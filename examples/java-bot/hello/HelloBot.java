import brawl.bot.v1.Bot.Option;
import brawl.kit.BrawlKit;
import com.google.gson.JsonElement;
import java.util.List;

/**
 * The Java "hello bot": plays every game with one simple rule.
 *
 * <p>Super Fantasy Brawl: the option that hits hardest (its params' {@code strength}), else the
 * first. ScrumBrawl: the first attack, else the first move, else the first option. The note says
 * which round the bot saw (from the observation the kit rebuilt from the referee's patches).
 *
 * <pre>hello-bot --server 127.0.0.1:50051 --token "$BRAWL_TOKEN" --games scrumbrawl</pre>
 */
public final class HelloBot implements BrawlKit.Bot {
  /** Higher is better; ties go to the earlier option. */
  static int score(String game, Option option) {
    switch (game) {
      case "superfantasybrawl":
        return option.getParams().getSuperfantasybrawl().getStrength();
      case "scrumbrawl":
        if (option.getKind().equals("attack")) return 2;
        if (option.getKind().equals("move")) return 1;
        return 0;
      default:
        return 0;
    }
  }

  @Override
  public String[] choose(BrawlKit.Turn turn) {
    List<Option> options = turn.request.getOptionsList();
    Option best = options.get(0);
    for (Option o : options) {
      if (score(turn.game, o) > score(turn.game, best)) best = o;
    }
    JsonElement round = turn.observation.get("round");
    return new String[] {best.getId(), "java: round " + (round == null ? 0 : round.getAsInt())};
  }

  public static void main(String[] args) {
    BrawlKit.Config config = BrawlKit.parseFlags(args);
    System.exit(BrawlKit.run(config, new HelloBot()));
  }
}
