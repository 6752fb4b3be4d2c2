/* check-appscan.c: the static scanner: tokenizers, framework rules, walk limits on hostile trees, and recall and
 * precision of screens and auth screens on the vendored real app trees (tests/data/apptrees). */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "appscan-internal.h"
#include "map-internal.h"

static char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/sw-appscan-XXXXXX";
	char *d = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(d);
	return strdup(d);
}

static void put(const char *root, const char *rel, const char *text)
{
	char *p = sw__path_join(root, rel);
	char *dir = strdup(p);
	*strrchr(dir, '/') = '\0';
	ck_assert_int_eq(sw__mkdirs(dir, 0755, NULL), SW_OK);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	free(dir);
	free(p);
}

static void rm_rf(const char *dir)
{
	char *cmd = sw__asprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static json_t *scan(const char *root)
{
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_appscan_static(root, NULL, &out, &err);
	ck_assert_msg(rc == SW_OK, "scan failed: %s", err ? sw_error_message(err) : "?");
	ck_assert(sw__utf8_valid(out, strlen(out)));
	json_t *j = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(j);
	sw_free(out);
	return j;
}

static json_t *screen_by(json_t *top, const char *field, const char *value)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(top, "screens"), i, s)
	{
		const char *v = json_string_value(json_object_get(s, field));
		if (v && !strcmp(v, value))
			return s;
	}
	return NULL;
}

static json_t *note(json_t *top, const char *code)
{
	size_t i;
	json_t *n;
	json_array_foreach(json_object_get(top, "parserNotes"), i,
	                   n) if (!strcmp(json_string_value(json_object_get(n, "code")), code)) return n;
	return NULL;
}

/* ---- tokenizers ------------------------------------------------------------------------------------------ */

static size_t count_kind(const sw__toks *t, int kind)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].kind == kind;
	return n;
}

static bool has_str(const sw__toks *t, const char *v)
{
	for (size_t i = 0; i < t->n; i++)
		if (sw__tok_str(t, i) && !strcmp(sw__tok_str(t, i), v))
			return true;
	return false;
}

START_TEST(test_tok_js)
{
	const char *src = "// a 'comment'\nconst a = `x ${b + '}'} y`; /* \"no\" */\n"
	                  "const r = /['\"]/g; const c = 'it\\'s';\n"
	                  "const el = <Text>Don't stop</Text>;\n"
	                  "<Stack.Screen name=\"Home\" component={HomeScreen} />\n";
	sw__toks t;
	sw__tokenize(SW__LANG_JS, src, strlen(src), &t);
	ck_assert(!t.failed);
	ck_assert_int_eq(count_kind(&t, SW__T_TMPL), 1); /* the template with ${} */
	ck_assert(has_str(&t, "}"));                     /* the string inside the interpolation */
	ck_assert(has_str(&t, "it's"));
	ck_assert(has_str(&t, "Home"));
	ck_assert(!has_str(&t, "comment") && !has_str(&t, "no"));
	/* the apostrophe in JSX text did not open a string: the Screen element is still tokenized */
	bool found = false;
	for (size_t i = 0; i + 3 < t.n; i++)
		if (sw__tok_is(&t, i, "<") && sw__tok_ident(&t, i + 1, "Stack") && sw__tok_ident(&t, i + 3, "Screen"))
			found = true;
	ck_assert(found);
	/* brackets are matched */
	for (size_t i = 0; i < t.n; i++)
		if (sw__tok_is(&t, i, "{"))
			ck_assert_int_ge(t.v[i].match, 0);
	sw__toks_free(&t);
}
END_TEST

START_TEST(test_tok_kotlin_swift_dart)
{
	sw__toks t;
	const char *kt = "val a = \"x ${f(\"}\")} $b\"\nval r = \"\"\"raw \"q\" $c\"\"\"\nval c = '\\''\n/* a /* "
	                 "nested */ 'x' */ val d = \"plain\"";
	sw__tokenize(SW__LANG_KOTLIN, kt, strlen(kt), &t);
	ck_assert(!t.failed);
	ck_assert_int_eq(count_kind(&t, SW__T_TMPL), 2);
	ck_assert(has_str(&t, "}") && has_str(&t, "plain"));
	ck_assert(!has_str(&t, "x"));
	sw__toks_free(&t);

	const char *sw = "let a = \"hi \\(name + \")\") there\"\nlet b = #\"raw \\(x) \"q\"\"#\nlet c = \"\"\"\nmulti "
	                 "\"line\"\n\"\"\"";
	sw__tokenize(SW__LANG_SWIFT, sw, strlen(sw), &t);
	ck_assert_int_eq(count_kind(&t, SW__T_TMPL), 1);
	ck_assert(has_str(&t, ")"));
	ck_assert(has_str(&t, "raw \\(x) \"q\""));
	ck_assert(has_str(&t, "\nmulti \"line\"\n"));
	sw__toks_free(&t);

	const char *dt =
	    "final a = 'it\\'s $x'; final b = r'raw $x'; final c = '''multi 'q' '''; final d = \"${m['k']}\";";
	sw__tokenize(SW__LANG_DART, dt, strlen(dt), &t);
	ck_assert_int_eq(count_kind(&t, SW__T_TMPL), 2);
	ck_assert(has_str(&t, "raw $x"));
	ck_assert(has_str(&t, "multi 'q' "));
	ck_assert(has_str(&t, "k"));
	sw__toks_free(&t);
}
END_TEST

START_TEST(test_tok_hostile)
{
	/* unterminated strings, deep nesting, NULs, lone brackets: no crash, no read past the end */
	char buf[4096];
	memset(buf, '<', sizeof(buf));
	sw__toks t;
	for (int lang = SW__LANG_JS; lang <= SW__LANG_DART; lang++) {
		sw__tokenize((sw__lang)lang, buf, sizeof(buf), &t);
		sw__toks_free(&t);
		const char *nest = "`${`${`${`${`${'";
		sw__tokenize((sw__lang)lang, nest, strlen(nest), &t);
		sw__toks_free(&t);
		const char nul[] = {'"', 'a', 0, 'b', '\\', 0, '}', ')', ']'};
		sw__tokenize((sw__lang)lang, nul, sizeof(nul), &t);
		sw__toks_free(&t);
	}
	sw_buf b = SW_BUF_INIT;
	for (int i = 0; i < 5000; i++)
		sw__buf_puts(&b, "\"${");
	sw__tokenize(SW__LANG_KOTLIN, b.data, b.len, &t);
	sw__toks_free(&t);
	sw__buf_free(&b);
}
END_TEST

START_TEST(test_auth_words)
{
	char why[160];
	ck_assert(sw__scan_auth_words("LoginScreen", why, sizeof(why)));
	ck_assert(sw__scan_auth_words("SignInPage", why, sizeof(why)));
	ck_assert(sw__scan_auth_words("/auth/sign-up", why, sizeof(why)));
	ck_assert(sw__scan_auth_words("ForgotPasswordScreen", why, sizeof(why)));
	ck_assert(sw__scan_auth_words("OTPVerify", why, sizeof(why)));
	ck_assert(!sw__scan_auth_words("AuthorizedPaymentsScreen", why, sizeof(why)));
	ck_assert(!sw__scan_auth_words("UnauthorizedError", why, sizeof(why)));
	ck_assert(!sw__scan_auth_words("AuthorScreen", why, sizeof(why)));
	ck_assert(!sw__scan_auth_words("DesignIntro", why, sizeof(why)));
}
END_TEST

/* ---- rules on small trees --------------------------------------------------------------------------------- */

START_TEST(test_react_navigation_rules)
{
	char *root = make_tmpdir();
	put(root, "package.json",
	    "{\"dependencies\":{\"react-native\":\"0.76.0\",\"@react-navigation/native\":\"7.0.0\"}}");
	put(root, "src/routes.ts",
	    "export const Routes = { Login: 'Login', Profile: { Edit: 'EditProfile' } } as const;\n"
	    "export enum Tabs { Feed = 'Feed' }\nexport const DETAILS = \"Details\";\n");
	put(root, "src/Nav.tsx",
	    "import { createNativeStackNavigator } from '@react-navigation/native-stack';\n"
	    "const Stack = createNativeStackNavigator();\n"
	    "export function Nav() { return (<Stack.Navigator>\n"
	    "  <Stack.Screen name={Routes.Login} component={LoginScreen} />\n"
	    "  <Stack.Screen name={Routes.Profile.Edit} component={EditProfileScreen} />\n"
	    "  <Stack.Screen name={DETAILS}>{(p) => <DetailsScreen {...p} />}</Stack.Screen>\n"
	    "  {items.map((it) => <Stack.Screen key={it} name={`item-${it}`} component={Item} />)}\n"
	    "  <Stack.Screen name={Tabs.Feed} component={FeedScreen} />\n"
	    "</Stack.Navigator>); }\n"
	    "const Root = createBottomTabNavigator({ screens: { Home: HomeScreen, [Tabs.Feed]: { screen: FeedScreen },"
	    " Settings: { screen: SettingsScreen, options: { title: 'x' } } } });\n");
	put(root, "src/LoginScreen.tsx", "export function LoginScreen() { return <TextInput secureTextEntry />; }\n");
	put(root, "src/__tests__/Fake.test.tsx", "<Stack.Screen name=\"FakeOne\" component={X} />");
	put(root, "e2e/nav.tsx", "<Stack.Screen name=\"FakeTwo\" component={X} />");
	put(root, "src/Button.stories.tsx", "<Stack.Screen name=\"FakeThree\" component={X} />");
	json_t *j = scan(root);
	const char *want[] = {"Login", "EditProfile", "Details", "Feed", "Home", "Settings"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(want); i++)
		ck_assert_msg(screen_by(j, "name", want[i]), "missing %s", want[i]);
	ck_assert_int_eq(json_array_size(json_object_get(j, "screens")), 6);
	ck_assert_ptr_null(screen_by(j, "name", "FakeOne"));
	ck_assert_ptr_null(screen_by(j, "name", "FakeTwo"));
	ck_assert_ptr_null(screen_by(j, "name", "FakeThree"));
	ck_assert_ptr_nonnull(note(j, "computed-screen-name"));
	json_t *login = screen_by(j, "name", "Login");
	ck_assert_str_eq(json_string_value(json_object_get(login, "id")), "react-navigation:Login");
	ck_assert(json_object_get(login, "auth"));
	ck_assert_str_eq(json_string_value(json_object_get(screen_by(j, "name", "Details"), "component")),
	                 "DetailsScreen");
	ck_assert_ptr_null(json_object_get(screen_by(j, "name", "Home"), "auth"));
	json_decref(j);
	rm_rf(root);
	free(root);
}
END_TEST

START_TEST(test_expo_router_rules)
{
	char *root = make_tmpdir();
	put(root, "package.json", "{\"dependencies\":{\"expo\":\"52.0.0\",\"expo-router\":\"4.0.0\"}}");
	put(root, "app.json", "{\"expo\":{\"name\":\"x\"}}");
	put(root, "src/app/_layout.tsx",
	    "export default function Root() { return <Stack><Stack.Screen name=\"(tabs)\" /></Stack>; }");
	put(root, "src/app/(tabs)/index.tsx", "export default function Home() { return null; }");
	put(root, "src/app/(auth)/sign-in.tsx", "export default function SignIn() { return null; }");
	put(root, "src/app/user/[id].tsx", "export { default } from '@/screens/UserScreen';");
	put(root, "src/app/docs/[...rest].tsx", "export default function Docs() { return null; }");
	put(root, "src/app/+not-found.tsx", "export default function Missing() { return null; }");
	put(root, "src/app/+html.tsx", "export default function Html() { return null; }");
	put(root, "src/app/api/hello+api.ts", "export function GET() {}");
	put(root, "src/app/+middleware.ts", "export default function m() {}");
	put(root, "src/screens/UserScreen.tsx", "export default function UserScreen() { return null; }");
	json_t *j = scan(root);
	ck_assert_int_eq(json_array_size(json_object_get(j, "screens")), 5);
	ck_assert_str_eq(json_string_value(json_object_get(screen_by(j, "route", "/"), "name")), "Home");
	ck_assert(json_object_get(screen_by(j, "route", "/sign-in"), "auth"));
	json_t *user = screen_by(j, "route", "/user/[id]");
	ck_assert_ptr_nonnull(user);
	ck_assert_str_eq(json_string_value(json_object_get(user, "component")), "UserScreen");
	ck_assert_int_eq(json_array_size(json_object_get(user, "sourceFiles")), 2);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(user, "params"), 0)), "id");
	ck_assert_ptr_nonnull(screen_by(j, "route", "/docs/[...rest]"));
	ck_assert_str_eq(json_string_value(json_object_get(screen_by(j, "route", "/+not-found"), "kind")), "not-found");
	ck_assert_int_eq(json_array_size(json_object_get(j, "layouts")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(note(j, "not-a-screen"), "count")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(j, "router")), "expo-router");
	json_decref(j);
	rm_rf(root);
	free(root);
}
END_TEST

START_TEST(test_android_rules)
{
	char *root = make_tmpdir();
	put(root, "settings.gradle.kts",
	    "rootProject.name = \"x\"\ninclude(\":app\")\ninclude(\":feature:login\", \":gone\")\n");
	put(root, "app/build.gradle.kts", "android { namespace = \"com.ex.app\" }\n");
	put(root, "app/src/main/AndroidManifest.xml",
	    "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\"><application>"
	    "<activity android:name=\".MainActivity\"><intent-filter><action "
	    "android:name=\"android.intent.action.MAIN\"/>"
	    "<category android:name=\"android.intent.category.LAUNCHER\"/></intent-filter></activity>"
	    "<activity-alias android:name=\".Alias\" android:targetActivity=\".MainActivity\"/>"
	    "<service android:name=\".Sync\"/><receiver android:name=\".R\"/><provider android:name=\".P\"/>"
	    "</application></manifest>");
	put(root, "app/src/main/java/com/ex/app/MainActivity.kt", "class MainActivity : ComponentActivity()\n");
	put(root, "feature/login/build.gradle", "android { namespace 'com.ex.login' }\n");
	put(root, "feature/login/src/main/AndroidManifest.xml",
	    "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\"><application>"
	    "<activity android:name=\"com.ex.login.LoginActivity\"/></application></manifest>");
	put(root, "feature/login/src/main/java/com/ex/login/LoginActivity.kt",
	    "class LoginActivity : AppCompatActivity() { fun f() { setContentView(R.layout.activity_login) } }\n");
	put(root, "feature/login/src/main/res/layout/activity_login.xml",
	    "<LinearLayout xmlns:android=\"http://schemas.android.com/apk/res/android\">"
	    "<EditText android:inputType=\"textPassword\"/></LinearLayout>");
	put(root, "unlisted/src/main/AndroidManifest.xml",
	    "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\"><application>"
	    "<activity android:name=\"x.Nope\"/></application></manifest>");
	json_t *j = scan(root);
	ck_assert_int_eq(json_array_size(json_object_get(j, "screens")), 2);
	json_t *main = screen_by(j, "name", "MainActivity");
	ck_assert_ptr_nonnull(main);
	ck_assert_str_eq(json_string_value(json_object_get(main, "id")), "android-manifest:com.ex.app.MainActivity");
	ck_assert(json_is_true(json_object_get(main, "launcher")));
	ck_assert_int_eq(json_array_size(json_object_get(main, "sourceFiles")), 2);
	json_t *login = screen_by(j, "name", "LoginActivity");
	ck_assert(json_object_get(login, "auth"));
	ck_assert_ptr_nonnull(note(j, "manifest-outside-modules"));
	ck_assert_ptr_nonnull(note(j, "module-missing"));
	ck_assert_int_eq(json_array_size(json_object_get(j, "edges")), 1);
	json_decref(j);
	rm_rf(root);
	free(root);
}
END_TEST

START_TEST(test_compose_rules)
{
	char *root = make_tmpdir();
	put(root, "settings.gradle", "include ':app'\n");
	put(root, "app/src/main/AndroidManifest.xml",
	    "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\" package=\"com.ex\"><application>"
	    "<activity android:name=\".MainActivity\"/></application></manifest>");
	put(root, "app/src/main/java/com/ex/Routes.kt",
	    "package com.ex\nimport androidx.navigation.compose.composable\n"
	    "object Routes { const val HOME = \"home\"\n const val LOGIN = \"login\" }\n"
	    "sealed class Screen(val route: String) { object Profile : Screen(\"profile\")\n object Detail : "
	    "Screen(\"detail/{id}\") }\n"
	    "enum class Dest(val route: String) { SETTINGS(\"settings\"), ABOUT(\"about\") }\n"
	    "@Serializable object CartRoute\n@Serializable data class ItemRoute(val id: String)\n");
	put(root, "app/src/main/java/com/ex/Nav.kt",
	    "fun NavGraphBuilder.composable(route: String) {}\n"
	    "fun AppNav() { NavHost(nav, startDestination = Routes.HOME) {\n"
	    "  composable(Routes.HOME) { HomeScreen(onOpen = {}) }\n"
	    "  composable(route = Routes.LOGIN) { LoginScreen() }\n"
	    "  composable(Screen.Profile.route) { ProfileScreen() }\n"
	    "  composable(route = Screen.Detail.route, arguments = listOf()) { DetailScreen() }\n"
	    "  composable(Dest.SETTINGS.route) { SettingsScreen() }\n"
	    "  composable(\"literal\") { Box { LiteralScreen() } }\n"
	    "  composable(\"${Routes.HOME}/{x}\") { Computed() }\n"
	    "  navigation<CheckoutGraph>(startDestination = CartRoute) {\n"
	    "    composable<CartRoute> { CartScreen() }\n"
	    "    dialog<ItemRoute> { ItemDialog() }\n"
	    "  }\n"
	    "  navigation(route = \"auth\", startDestination = Routes.LOGIN) { }\n"
	    "} }\n"
	    "fun Entries() = entryProvider { entry<AboutKey> { AboutScreen() } }\n");
	put(root, "app/src/main/java/com/ex/LoginScreen.kt",
	    "@Composable fun LoginScreen() { TextField(visualTransformation = PasswordVisualTransformation()) }\n");
	put(root, "app/src/main/res/navigation/nav_graph.xml",
	    "<navigation xmlns:android=\"http://schemas.android.com/apk/res/android\" "
	    "xmlns:app=\"http://schemas.android.com/apk/res-auto\" android:id=\"@+id/main\">"
	    "<fragment android:id=\"@+id/listFragment\" android:name=\"com.ex.ListFragment\">"
	    "<action android:id=\"@+id/toDetail\" app:destination=\"@id/detailFragment\"/></fragment>"
	    "<fragment android:id=\"@+id/detailFragment\" android:name=\"com.ex.DetailFragment\">"
	    "<deepLink app:uri=\"ex://detail/{id}\"/></fragment>"
	    "<dialog android:id=\"@+id/confirm\" android:name=\"com.ex.ConfirmDialog\"/>"
	    "<navigation android:id=\"@+id/nested\"><fragment android:id=\"@+id/inner\" "
	    "android:name=\"com.ex.Inner\"/></navigation>"
	    "</navigation>");
	json_t *j = scan(root);
	const char *routes[] = {"home",           "login",     "profile",   "detail/{id}", "settings",
	                        "literal",        "CartRoute", "ItemRoute", "AboutKey",    "listFragment",
	                        "detailFragment", "confirm",   "inner"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(routes); i++)
		ck_assert_msg(screen_by(j, "route", routes[i]), "missing route %s", routes[i]);
	ck_assert_ptr_null(screen_by(j, "route", "CheckoutGraph"));
	ck_assert_ptr_null(screen_by(j, "route", "auth"));
	/* 13 destinations + MainActivity */
	ck_assert_int_eq(json_array_size(json_object_get(j, "screens")), 14);
	ck_assert_str_eq(json_string_value(json_object_get(screen_by(j, "route", "home"), "component")), "HomeScreen");
	ck_assert_str_eq(json_string_value(json_object_get(screen_by(j, "route", "literal"), "component")),
	                 "LiteralScreen");
	ck_assert_str_eq(json_string_value(json_object_get(screen_by(j, "route", "ItemRoute"), "kind")), "dialog");
	ck_assert_str_eq(json_string_value(json_object_get(screen_by(j, "route", "AboutKey"), "router")),
	                 "navigation3");
	json_t *login = screen_by(j, "route", "login");
	ck_assert(json_object_get(login, "auth"));
	ck_assert_int_eq(json_array_size(json_object_get(login, "sourceFiles")), 2);
	ck_assert_ptr_nonnull(note(j, "computed-screen-name"));
	ck_assert_int_ge(json_array_size(json_object_get(j, "graphs")), 3);
	ck_assert_int_eq(json_array_size(json_object_get(j, "deepLinks")), 1);
	ck_assert_int_eq(json_array_size(json_object_get(j, "edges")), 1);
	json_decref(j);
	rm_rf(root);
	free(root);
}
END_TEST

START_TEST(test_flutter_rules)
{
	char *root = make_tmpdir();
	put(root, "pubspec.yaml",
	    "name: x\ndependencies:\n  flutter:\n    sdk: flutter\n  firebase_auth: ^4.0.0\n  go_router: ^14.0.0\n");
	put(root, "lib/routes.dart",
	    "class AppRoutes {\n  static const String home = '/';\n  static const profile = 'profile';\n}\n");
	put(root, "lib/router.dart",
	    "final router = GoRouter(routes: [\n"
	    "  GoRoute(path: AppRoutes.home, builder: (c, s) => const HomeScreen(), routes: [\n"
	    "    GoRoute(path: AppRoutes.profile, builder: (c, s) => ProfilePage()),\n"
	    "    GoRoute(path: 'edit/:id', pageBuilder: (c, s) => MaterialPage(child: EditScreen(id: s.id))),\n"
	    "  ]),\n"
	    "  StatefulShellRoute.indexedStack(builder: (c, s, n) => Shell(n), branches: [\n"
	    "    StatefulShellBranch(routes: [GoRoute(path: '/feed', builder: (c, s) => FeedScreen())]),\n"
	    "  ]),\n"
	    "  GoRoute(path: '/login', builder: (c, s) => LoginView()),\n"
	    "  GoRoute(path: '/x/${id}', builder: (c, s) => X()),\n"
	    "]);\n"
	    "class App extends StatelessWidget { Widget build(c) => MaterialApp(routes: {\n"
	    "  '/legacy': (context) => LegacyScreen(),\n  AppRoutes.home: (_) => const HomeScreen(),\n},\n"
	    "  onGenerateRoute: (s) => null); }\n");
	put(root, "lib/login.dart",
	    "class LoginView extends StatelessWidget { build(c) => TextField(obscureText: true); }\n");
	put(root, "lib/pages.dart", "@RoutePage()\nclass SettingsPage extends StatelessWidget {}\n");
	json_t *j = scan(root);
	const char *routes[] = {"/", "/profile", "/edit/:id", "/feed", "/login", "/legacy"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(routes); i++)
		ck_assert_msg(screen_by(j, "route", routes[i]), "missing route %s", routes[i]);
	ck_assert_str_eq(json_string_value(json_object_get(screen_by(j, "route", "/edit/:id"), "component")),
	                 "EditScreen");
	ck_assert_ptr_nonnull(screen_by(j, "name", "SettingsPage"));
	ck_assert_ptr_nonnull(note(j, "auto-route"));
	ck_assert_ptr_nonnull(note(j, "dynamic-routes"));
	ck_assert_ptr_nonnull(note(j, "computed-screen-name"));
	ck_assert(json_object_get(screen_by(j, "route", "/login"), "auth"));
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(j, "auth"), "libraries")), 1);
	/* go_router: 5 + MaterialApp: 2 (/ and /legacy) + auto_route: 1 */
	ck_assert_int_eq(json_array_size(json_object_get(j, "screens")), 8);
	json_decref(j);
	rm_rf(root);
	free(root);
}
END_TEST

START_TEST(test_ios_rules)
{
	char *root = make_tmpdir();
	put(root, "App/App.swift",
	    "import SwiftUI\nimport FirebaseAuth\n@main struct MyApp: App { var body: some Scene { WindowGroup { "
	    "RootView() } } }\n");
	put(root, "App/RootView.swift",
	    "struct RootView: View { var body: some View { TabView { FeedView().tabItem { Text(\"a\") }\n"
	    "  NavigationStack { ProfileView() }.navigationDestination(for: Int.self) { id in ItemView(id: id) } } } "
	    "}\n"
	    "struct FeedView: View { var body: some View { List { NavigationLink(destination: DetailView()) { "
	    "RowView() }\n"
	    "  NavigationLink(value: 3) { BadgeView() } }.sheet(isPresented: $x) { ComposeView() } } }\n"
	    "struct RowView: View { var body: some View { Text(\"r\") } }\nstruct BadgeView: View { var body: some "
	    "View { Text(\"b\") } }\n"
	    "struct ProfileView: View { var body: some View { Text(\"p\") } }\nstruct ItemView: View { var id: Int; "
	    "var body: some View { Text(\"i\") } }\n"
	    "struct DetailView: View { var body: some View { Text(\"\\(name)\") } }\nstruct ComposeView: View { var "
	    "body: some View { Text(\"c\") } }\n"
	    "struct SignInScreen: View { var body: some View { SecureField(\"pw\", text: $pw) } }\n"
	    "struct Unused: View { var body: some View { Text(\"u\") } }\n");
	put(root, "App/UIKit.swift",
	    "class BaseViewController: UIViewController {}\nclass SettingsViewController: BaseViewController {}\n"
	    "final class AboutViewController: UIViewController {}\nclass Nav: UINavigationController {}\n"
	    "class StoryVC: UITableViewController {}\n");
	put(root, "App/Main.storyboard",
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><document><scenes>"
	    "<scene><objects><navigationController id=\"n1\"/></objects></scene>"
	    "<scene><objects><tableViewController id=\"t1\" customClass=\"StoryVC\"><connections>"
	    "<segue destination=\"v2\" kind=\"show\" id=\"s1\"/></connections></tableViewController></objects></scene>"
	    "<scene><objects><viewController id=\"v2\" storyboardIdentifier=\"Welcome\"/></objects></scene>"
	    "</scenes></document>");
	json_t *j = scan(root);
	const char *views[] = {"RootView",   "FeedView",    "ProfileView", "ItemView",
	                       "DetailView", "ComposeView", "SignInScreen"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(views); i++)
		ck_assert_msg(screen_by(j, "name", views[i]), "missing %s", views[i]);
	ck_assert_ptr_null(screen_by(j, "name", "RowView"));
	ck_assert_ptr_null(screen_by(j, "name", "BadgeView"));
	ck_assert_ptr_null(screen_by(j, "name", "Unused"));
	ck_assert_ptr_nonnull(screen_by(j, "name", "SettingsViewController"));
	ck_assert_ptr_nonnull(screen_by(j, "name", "AboutViewController"));
	ck_assert_ptr_null(screen_by(j, "name", "BaseViewController"));
	ck_assert_ptr_null(screen_by(j, "name", "Nav"));
	json_t *story = screen_by(j, "name", "StoryVC");
	ck_assert_ptr_nonnull(story);
	ck_assert_int_eq(json_array_size(json_object_get(story, "sourceFiles")), 2); /* the class and the storyboard */
	ck_assert_ptr_nonnull(screen_by(j, "name", "Welcome"));
	ck_assert(json_object_get(screen_by(j, "name", "SignInScreen"), "auth"));
	ck_assert_int_eq(json_array_size(json_object_get(j, "edges")), 1);
	/* 7 SwiftUI + 3 UIKit (Settings, About, StoryVC) + 1 storyboard scene */
	ck_assert_int_eq(json_array_size(json_object_get(j, "screens")), 11);
	json_decref(j);
	rm_rf(root);
	free(root);
}
END_TEST

/* ---- hostile trees ------------------------------------------------------------------------------------------ */

START_TEST(test_hostile_tree)
{
	char *root = make_tmpdir();
	char *outside = make_tmpdir();
	put(outside, "Secret.tsx", "<Stack.Screen name=\"Outside\" component={X} />");
	put(root, "package.json",
	    "{\"dependencies\":{\"react-native\":\"0.76.0\",\"@react-navigation/native\":\"7.0.0\"}}");
	put(root, "src/Nav.tsx", "<Stack.Screen name=\"Real\" component={RealScreen} />");
	char *p = sw__path_join(root, "linked-out");
	ck_assert_int_eq(symlink(outside, p), 0); /* a folder out of the project */
	free(p);
	p = sw__path_join(root, "src/loop");
	ck_assert_int_eq(symlink("..", p), 0); /* a loop */
	free(p);
	char *target = sw__path_join(outside, "Secret.tsx");
	p = sw__path_join(root, "src/SecretLink.tsx");
	ck_assert_int_eq(symlink(target, p), 0); /* a file out of the project */
	free(p);
	free(target);
	p = sw__path_join(root, "src/InsideLink.tsx");
	ck_assert_int_eq(symlink("Nav.tsx", p), 0); /* a file inside: read */
	free(p);
	/* a 200 MB generated bundle, sparse */
	p = sw__path_join(root, "src/generated/bundle.js");
	put(root, "src/generated/bundle.js", "");
	int fd = open(p, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 200L * 1024 * 1024), 0);
	close(fd);
	free(p);
	/* a binary file named .tsx */
	p = sw__path_join(root, "src/Binary.tsx");
	FILE *f = fopen(p, "wb");
	const char bin[] = "<Stack.Screen name=\"Bin\" component={X} />\0\x01\x02";
	fwrite(bin, 1, sizeof(bin), f);
	fclose(f);
	free(p);
	/* a file name that is not UTF-8 */
	put(root, "src/bad\xff\xfename.tsx", "<Stack.Screen name=\"BadName\" component={X} />");
	/* test code full of fake navigators */
	put(root, "src/__tests__/nav.test.tsx", "<Stack.Screen name=\"Fake\" component={X} />");
	put(root, "node_modules/lib/index.js", "<Stack.Screen name=\"Dep\" component={X} />");
	json_t *j = scan(root);
	ck_assert_int_eq(json_array_size(json_object_get(j, "screens")), 1);
	ck_assert_ptr_nonnull(screen_by(j, "name", "Real"));
	ck_assert_ptr_nonnull(note(j, "symlink-folder-not-followed"));
	ck_assert_int_eq(json_integer_value(json_object_get(note(j, "symlink-folder-not-followed"), "count")), 2);
	ck_assert_ptr_nonnull(note(j, "symlink-outside-project"));
	ck_assert_ptr_nonnull(note(j, "file-too-large"));
	ck_assert_ptr_nonnull(note(j, "binary-file"));
	json_t *bad = note(j, "bad-file-name");
	ck_assert_ptr_nonnull(bad);
	const char *shown = json_string_value(json_array_get(json_object_get(bad, "paths"), 0));
	ck_assert(sw__utf8_valid(shown, strlen(shown)));
	/* the big file was not read */
	ck_assert_int_lt(json_integer_value(json_object_get(json_object_get(j, "stats"), "bytesRead")), 1024 * 1024);
	json_decref(j);
	rm_rf(root);
	rm_rf(outside);
	free(root);
	free(outside);
}
END_TEST

START_TEST(test_caps_and_errors)
{
	char *root = make_tmpdir();
	for (int i = 0; i < 30; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "d/f%02d.txt", i);
		put(root, rel, "x");
	}
	put(root, "a/b/c/d/e/f/deep.tsx", "x");
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_appscan_static(root, "{\"maxFiles\":10,\"maxDepth\":3,\"codeIndex\":false}", &out, &err),
	                 SW_OK);
	json_t *j = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(note(j, "file-cap"));
	ck_assert_ptr_nonnull(note(j, "depth-cap"));
	ck_assert_ptr_null(json_object_get(j, "codeIndex"));
	json_decref(j);
	sw_free(out);
	out = NULL;
	ck_assert_int_eq(sw_appscan_static(root, "{\"bogus\":1}", &out, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	ck_assert_ptr_null(out);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_appscan_static("relative/path", NULL, &out, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_appscan_static("/nonexistent/sw-appscan", NULL, &out, &err), SW_EINVAL);
	sw_error_free(err);
	rm_rf(root);
	free(root);
}
END_TEST

/* ---- recall and precision on real app trees -------------------------------------------------------------- */

typedef struct tally {
	char router[64];
	int expected, found, hit;
} tally;

static tally *tally_for(tally *t, size_t *n, const char *router)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(t[i].router, router))
			return &t[i];
	snprintf(t[*n].router, sizeof(t[*n].router), "%s", router);
	return &t[(*n)++];
}

static bool matches(json_t *want, json_t *got)
{
	const char *router = json_string_value(json_object_get(want, "router"));
	if (strcmp(router, json_string_value(json_object_get(got, "router"))))
		return false;
	const char *route = json_string_value(json_object_get(want, "route"));
	const char *name = json_string_value(json_object_get(want, "name"));
	if (route)
		return json_string_value(json_object_get(got, "route")) &&
		       !strcmp(route, json_string_value(json_object_get(got, "route")));
	return name && !strcmp(name, json_string_value(json_object_get(got, "name")));
}

START_TEST(test_real_trees_recall_precision)
{
	const char *src = getenv("SWIPIUM_SOURCE_ROOT");
	ck_assert_ptr_nonnull(src);
	char *dir = sw__asprintf("%s/tests/data/apptrees", src);
	char *exp_path = sw__asprintf("%s/expected-screens.json", dir);
	json_t *exp = json_load_file(exp_path, 0, NULL);
	ck_assert_ptr_nonnull(exp);
	tally t[32];
	memset(t, 0, sizeof(t));
	size_t nt = 0;
	int auth_exp = 0, auth_found = 0, auth_hit = 0;
	const char *tree;
	json_t *want;
	json_object_foreach(json_object_get(exp, "trees"), tree, want)
	{
		char *root = sw__asprintf("%s/%s", dir, tree);
		json_t *j = scan(root);
		size_t i, k;
		json_t *w, *g;
		json_array_foreach(json_object_get(want, "screens"), i, w)
		{
			tally *x = tally_for(t, &nt, json_string_value(json_object_get(w, "router")));
			x->expected++;
			bool hit = false;
			json_array_foreach(json_object_get(j, "screens"), k, g) hit = hit || matches(w, g);
			if (hit)
				x->hit++;
			else
				fprintf(stderr, "appscan %s: missed %s %s\n", tree,
				        json_string_value(json_object_get(w, "router")),
				        json_string_value(
				            json_object_get(w, json_object_get(w, "route") ? "route" : "name")));
		}
		json_array_foreach(json_object_get(j, "screens"), k, g)
		{
			tally *x = tally_for(t, &nt, json_string_value(json_object_get(g, "router")));
			x->found++;
			bool hit = false;
			json_array_foreach(json_object_get(want, "screens"), i, w) hit = hit || matches(w, g);
			if (!hit)
				fprintf(stderr, "appscan %s: extra %s\n", tree,
				        json_string_value(json_object_get(g, "id")));
			bool auth = json_object_get(g, "auth") != NULL;
			bool auth_want = false;
			json_array_foreach(json_object_get(want, "authScreens"), i, w) auth_want =
			    auth_want || matches(w, g);
			auth_found += auth;
			auth_hit += auth && auth_want;
			if (auth != auth_want)
				fprintf(stderr, "appscan %s: auth %s for %s\n", tree, auth ? "extra" : "missed",
				        json_string_value(json_object_get(g, "id")));
		}
		auth_exp += (int)json_array_size(json_object_get(want, "authScreens"));
		json_decref(j);
		free(root);
	}
	for (size_t i = 0; i < nt; i++) {
		double recall = t[i].expected ? (double)t[i].hit / t[i].expected : 1.0;
		double precision = t[i].found ? (double)t[i].hit / t[i].found : 1.0;
		fprintf(
		    stderr,
		    "appscan recall/precision %-20s expected %3d found %3d matched %3d recall %.2f precision %.2f\n",
		    t[i].router, t[i].expected, t[i].found, t[i].hit, recall, precision);
		ck_assert_msg(recall >= 0.9, "%s recall %.2f below 0.9", t[i].router, recall);
		ck_assert_msg(precision >= 0.9, "%s precision %.2f below 0.9", t[i].router, precision);
	}
	double ar = auth_exp ? (double)auth_hit / auth_exp : 1.0, ap = auth_found ? (double)auth_hit / auth_found : 1.0;
	fprintf(stderr, "appscan auth screens: expected %d found %d matched %d recall %.2f precision %.2f\n", auth_exp,
	        auth_found, auth_hit, ar, ap);
	ck_assert_msg(ar >= 0.9 && ap >= 0.9, "auth recall %.2f / precision %.2f below 0.9", ar, ap);
	json_decref(exp);
	free(exp_path);
	free(dir);
}
END_TEST

/* A map screen in a compact answer: its fields, its first 3 source files and how many more there are, its URI. */
START_TEST(test_compact_screen_entry)
{
	json_t *e = json_pack("{s:s,s:s,s:s,s:[s,s,s,s,s],s:s}", "id", "login screen", "name", "Login", "kind", "screen",
	                      "sourceFiles", "a.ts", "b.ts", "c.ts", "d.ts", "e.ts", "notKept", "x");
	json_t *o = sw__map_compact_screen(e, "swipium://project/p1/app-map");
	ck_assert_str_eq(json_string_value(json_object_get(o, "name")), "Login");
	ck_assert_ptr_null(json_object_get(o, "notKept"));
	ck_assert_uint_eq(json_array_size(json_object_get(o, "sourceFiles")), 3);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(o, "sourceFiles"), 2)), "c.ts");
	ck_assert_int_eq(json_integer_value(json_object_get(o, "sourceFilesOmitted")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(o, "uri")), "swipium://project/p1/app-map/screen/login%20screen");
	json_decref(o);
	json_array_remove(json_object_get(e, "sourceFiles"), 4);
	json_array_remove(json_object_get(e, "sourceFiles"), 3);
	o = sw__map_compact_screen(e, "swipium://project/p1/app-map");
	ck_assert_uint_eq(json_array_size(json_object_get(o, "sourceFiles")), 3);
	ck_assert_ptr_null(json_object_get(o, "sourceFilesOmitted"));
	json_decref(o);
	json_decref(e);
}
END_TEST

static Suite *appscan_suite(void)
{
	Suite *s = suite_create("appscan");
	TCase *tc = tcase_create("tokenizers");
	tcase_add_test(tc, test_tok_js);
	tcase_add_test(tc, test_tok_kotlin_swift_dart);
	tcase_add_test(tc, test_tok_hostile);
	tcase_add_test(tc, test_auth_words);
	suite_add_tcase(s, tc);
	tc = tcase_create("rules");
	tcase_add_test(tc, test_react_navigation_rules);
	tcase_add_test(tc, test_expo_router_rules);
	tcase_add_test(tc, test_android_rules);
	tcase_add_test(tc, test_compose_rules);
	tcase_add_test(tc, test_flutter_rules);
	tcase_add_test(tc, test_ios_rules);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_hostile_tree);
	tcase_add_test(tc, test_caps_and_errors);
	tcase_add_test(tc, test_compact_screen_entry);
	suite_add_tcase(s, tc);
	tc = tcase_create("real-trees");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_real_trees_recall_precision);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(appscan_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
