// Stand-in for office-addin-manifest under jest: office-addin-mock only reads its OfficeApp enum (same values as the real package's lib/officeApp.js).
"use strict";

const OfficeApp = Object.freeze({
  Excel: "excel",
  OneNote: "onenote",
  Outlook: "outlook",
  PowerPoint: "powerpoint",
  Project: "project",
  Word: "word",
});

module.exports = { OfficeApp };
