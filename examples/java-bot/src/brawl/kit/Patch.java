package brawl.kit;

import brawl.bot.v1.Bot.PatchOp;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonSyntaxException;
import java.util.ArrayList;
import java.util.List;

/** Observation patches: the subset of RFC 6902 JSON Patch the referee sends (add, replace, remove). */
public final class Patch {
  private Patch() {}

  /** Applies the ops in order to doc (changing it) and returns the result. */
  public static JsonObject apply(JsonObject doc, List<PatchOp> ops) {
    JsonElement root = doc;
    for (PatchOp op : ops) {
      JsonElement value = null;
      if (!op.getOp().equals("remove")) {
        try {
          value = JsonParser.parseString(op.getValue());
        } catch (JsonSyntaxException e) {
          throw new IllegalArgumentException("patch value at " + op.getPath() + " is not JSON");
        }
      }
      List<String> tokens = pointer(op.getPath());
      if (tokens.isEmpty()) {
        if (value == null) throw new IllegalArgumentException("cannot remove the whole observation");
        root = value;
        continue;
      }
      JsonElement parent = root;
      for (String t : tokens.subList(0, tokens.size() - 1)) {
        parent = child(parent, t, op.getPath());
      }
      String last = tokens.get(tokens.size() - 1);
      if (parent.isJsonObject()) {
        JsonObject o = parent.getAsJsonObject();
        switch (op.getOp()) {
          case "add": case "replace": o.add(last, value); break;
          case "remove": o.remove(last); break;
          default: throw new IllegalArgumentException("unknown patch op " + op.getOp());
        }
      } else if (parent.isJsonArray()) {
        JsonArray a = parent.getAsJsonArray();
        switch (op.getOp()) {
          case "add": {
            int i = last.equals("-") ? a.size() : index(last, a.size() + 1, op.getPath());
            List<JsonElement> tail = new ArrayList<>();
            while (a.size() > i) tail.add(0, a.remove(a.size() - 1));
            a.add(value);
            tail.forEach(a::add);
            break;
          }
          case "replace": a.set(index(last, a.size(), op.getPath()), value); break;
          case "remove": a.remove(index(last, a.size(), op.getPath())); break;
          default: throw new IllegalArgumentException("unknown patch op " + op.getOp());
        }
      } else {
        throw new IllegalArgumentException("patch path " + op.getPath() + " does not exist");
      }
    }
    if (!root.isJsonObject()) throw new IllegalArgumentException("the observation is not a JSON object");
    return root.getAsJsonObject();
  }

  private static JsonElement child(JsonElement parent, String t, String path) {
    JsonElement c = null;
    if (parent.isJsonObject()) c = parent.getAsJsonObject().get(t);
    else if (parent.isJsonArray()) c = parent.getAsJsonArray().get(index(t, parent.getAsJsonArray().size(), path));
    if (c == null) throw new IllegalArgumentException("patch path " + path + " does not exist");
    return c;
  }

  private static int index(String t, int bound, String path) {
    try {
      int i = Integer.parseInt(t);
      if (i >= 0 && i < bound) return i;
    } catch (NumberFormatException e) {
      // falls through
    }
    throw new IllegalArgumentException("patch path " + path + ": bad index " + t);
  }

  static List<String> pointer(String path) {
    List<String> out = new ArrayList<>();
    if (path.isEmpty()) return out;
    if (!path.startsWith("/")) throw new IllegalArgumentException("bad JSON Pointer " + path);
    for (String t : path.substring(1).split("/", -1)) out.add(t.replace("~1", "/").replace("~0", "~"));
    return out;
  }
}
