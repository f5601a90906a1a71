// Progressive enhancement only: every screen works without JavaScript.
// Buttons with data-confirmar ask before submitting (remove, reprocess all).
document.addEventListener('submit', (ev) => {
  const btn = ev.submitter;
  const msg = (btn && btn.getAttribute('data-confirmar')) || ev.target.getAttribute('data-confirmar');
  if (msg && !window.confirm(msg)) ev.preventDefault();
});
