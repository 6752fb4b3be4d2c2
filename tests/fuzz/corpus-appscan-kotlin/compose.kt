object Routes { const val HOME = "home" }
sealed class Screen(val route: String) { object P : Screen("p") }
fun G() { NavHost { composable(Routes.HOME) { HomeScreen() }; composable<R> { X() }; navigation<G>(start = R) { dialog("d") { D() } } } }
val s = "a ${f("}")} $b"; val raw = """x "q" """; val c = '"'
