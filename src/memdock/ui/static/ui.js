// A little help on top of pages that work without it: "/" focuses the search box.
document.addEventListener("keydown", (event) => {
  const box = document.querySelector("header.top input[type=search]");
  if (event.key === "/" && box && document.activeElement !== box && !event.target.closest("input, textarea, select")) {
    event.preventDefault();
    box.focus();
    box.select();
  }
});
