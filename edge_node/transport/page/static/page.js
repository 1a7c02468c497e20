// The owner's page's one script: stream an answer as it is read, and show an upload's progress.
// Without it every form still works (the server answers the plain POST). Draft text is set as text, never as HTML;
// the final answer's HTML comes from the server, which escapes every value in it.
"use strict";

function csrf() {
  return document.body.dataset.csrf || "";
}

async function ask(event) {
  const form = event.target;
  const question = form.querySelector("textarea").value.trim();
  if (!question) return;
  event.preventDefault();
  const draftBox = document.getElementById("draft");
  const draft = draftBox.querySelector(".draft");
  const result = document.getElementById("result");
  const button = form.querySelector("button");
  draft.textContent = "";
  result.textContent = "";
  draftBox.hidden = false;
  button.disabled = true;
  try {
    const response = await fetch("/ask/stream", {
      method: "POST",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf()},
      body: JSON.stringify({question}),
      credentials: "same-origin",
    });
    if (!response.ok) throw new Error(await response.text());
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = "";
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, {stream: true});
      let cut;
      while ((cut = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, cut);
        buffered = buffered.slice(cut + 1);
        if (!line) continue;
        const event = JSON.parse(line);
        if (event.draft !== undefined) draft.textContent += event.draft;
        if (event.html !== undefined) {
          result.innerHTML = event.html;  // built by the server, every value escaped
          draftBox.hidden = true;
        }
      }
    }
  } catch (error) {
    result.textContent = "The question could not be asked: " + error.message;
  } finally {
    button.disabled = false;
    result.focus();
  }
}

function upload(event) {
  const form = event.target;
  const progress = document.getElementById("progress");
  event.preventDefault();
  const request = new XMLHttpRequest();
  request.open("POST", form.action);
  request.setRequestHeader("X-CSRF-Token", csrf());
  request.upload.onprogress = (e) => {
    if (e.lengthComputable) progress.value = Math.round((100 * e.loaded) / e.total);
  };
  request.onload = () => {
    document.open();
    document.write(request.responseText);
    document.close();
  };
  progress.hidden = false;
  progress.value = 0;
  request.send(new FormData(form));
}

document.addEventListener("DOMContentLoaded", () => {
  const askForm = document.getElementById("ask");
  if (askForm) askForm.addEventListener("submit", ask);
  const uploadForm = document.getElementById("upload");
  if (uploadForm) uploadForm.addEventListener("submit", upload);
});
