// Progressive enhancement only: every screen works without JavaScript.
// Buttons with data-confirmar ask before submitting (remove, reprocess all).
document.addEventListener('submit', (ev) => {
  const btn = ev.submitter;
  const msg = (btn && btn.getAttribute('data-confirmar')) || ev.target.getAttribute('data-confirmar');
  if (msg && !window.confirm(msg)) ev.preventDefault();
});

// A page that follows something running reloads itself (data-atualizar="<s>" or "<s>; url=<path>",
// the same value as the <noscript> meta refresh of browsers without JavaScript), with a button
// to pause it: whoever is reading or using a screen reader decides when the page changes.
(() => {
  const valor = document.body.getAttribute('data-atualizar');
  const m = valor && /^(\d+)(?:;\s*url=(\/\S*))?$/.exec(valor);
  if (!m) return;
  const segundos = Number(m[1]);
  const destino = m[2] || null;
  let timer = null;
  const banner = document.createElement('p');
  banner.className = 'atualizacao';
  const texto = document.createElement('span');
  const botao = document.createElement('button');
  botao.type = 'button';
  botao.className = 'secundario';
  const agendar = () => {
    timer = window.setTimeout(() => { if (destino) window.location.replace(destino); else window.location.reload(); }, segundos * 1000);
    texto.textContent = `Esta página se atualiza sozinha a cada ${segundos} s.`;
    botao.textContent = 'Pausar a atualização';
  };
  botao.addEventListener('click', () => {
    if (timer === null) { agendar(); return; }
    window.clearTimeout(timer);
    timer = null;
    texto.textContent = 'Atualização automática pausada.';
    botao.textContent = 'Retomar a atualização';
  });
  banner.append(texto, botao);
  const h1 = document.querySelector('main h1');
  if (h1) h1.after(banner); else document.body.prepend(banner);
  agendar();
})();
