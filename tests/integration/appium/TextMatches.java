// TextMatches.java: for each PATTERN TEXT pair of its arguments, prints 1 when java.util.regex matches the whole
// text (what UiSelector.textMatches does) and 0 when it does not; exits 2 when a pattern does not compile.
// Run as `java TextMatches.java PATTERN TEXT [PATTERN TEXT ...]`.
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

public class TextMatches {
    public static void main(String[] args) {
        for (int i = 0; i + 1 < args.length; i += 2) {
            try {
                System.out.println(Pattern.compile(args[i]).matcher(args[i + 1]).matches() ? "1" : "0");
            } catch (PatternSyntaxException e) {
                System.err.println(e.getMessage());
                System.exit(2);
            }
        }
    }
}
