enum routes {
  HOME_TAB = "HomeTab",
  HOME = "Home",
  INNER = "Inner",
  SETTINGS = "Settings",
}

export default routes;
