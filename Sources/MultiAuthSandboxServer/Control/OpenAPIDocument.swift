/// The OpenAPI 3.1 document of the control API, served at `/_multiauth/openapi.json`
/// (Docs/Emulator.md, "Control API"). `Tests/MultiAuthSandboxServerTests` checks that every
/// route it names answers.
enum OpenAPIDocument {
    static let json = #"""
        {
         "components": {
          "schemas": {
           "Clock": {
            "properties": {
             "elapsed": {
              "$ref": "#/components/schemas/Duration"
             },
             "mode": {
              "enum": [
               "manual",
               "realTime"
              ]
             },
             "now": {
              "format": "date-time",
              "type": "string"
             },
             "sleepers": {
              "description": "Requests waiting on the manual clock (latency faults)",
              "type": "integer"
             },
             "unix": {
              "type": "number"
             }
            },
            "type": "object"
           },
           "Duration": {
            "properties": {
             "attoseconds": {
              "type": "integer"
             },
             "seconds": {
              "type": "integer"
             }
            },
            "required": [
             "seconds"
            ],
            "type": "object"
           },
           "Error": {
            "properties": {
             "error": {
              "type": "string"
             },
             "status": {
              "type": "integer"
             }
            },
            "required": [
             "error",
             "status"
            ],
            "type": "object"
           },
           "Fault": {
            "properties": {
             "destination": {
              "type": [
               "string",
               "null"
              ]
             },
             "detail": {
              "type": "string"
             },
             "fired": {
              "type": "integer"
             },
             "host": {
              "type": [
               "string",
               "null"
              ]
             },
             "id": {
              "type": "string"
             },
             "pathPrefix": {
              "type": "string"
             },
             "probability": {
              "type": "number"
             },
             "remaining": {
              "type": [
               "integer",
               "null"
              ]
             },
             "seconds": {
              "type": "number"
             },
             "type": {
              "enum": [
               "latency",
               "responseLatency",
               "status",
               "dropConnection",
               "rateLimit",
               "failDelivery",
               "clockOffset"
              ]
             }
            },
            "type": "object"
           },
           "FaultRequest": {
            "properties": {
             "body": {
              "description": "status: a JSON value or a string"
             },
             "channel": {
              "description": "failDelivery",
              "type": "string"
             },
             "destination": {
              "description": "failDelivery",
              "type": "string"
             },
             "headers": {
              "additionalProperties": {
               "type": "string"
              },
              "type": "object"
             },
             "host": {
              "type": "string"
             },
             "limit": {
              "type": "integer"
             },
             "pathPrefix": {
              "type": "string"
             },
             "probability": {
              "maximum": 1,
              "minimum": 0,
              "type": "number"
             },
             "repeat": {
              "oneOf": [
               {
                "enum": [
                 "once",
                 "always"
                ]
               },
               {
                "minimum": 1,
                "type": "integer"
               }
              ]
             },
             "seconds": {
              "description": "latency, slept on the manual clock",
              "type": "number"
             },
             "status": {
              "type": "integer"
             },
             "type": {
              "enum": [
               "latency",
               "responseLatency",
               "status",
               "dropConnection",
               "rateLimit",
               "failDelivery"
              ]
             },
             "windowSeconds": {
              "type": "number"
             }
            },
            "required": [
             "type"
            ],
            "type": "object"
           },
           "Host": {
            "properties": {
             "baseURL": {
              "format": "uri",
              "type": "string"
             },
             "host": {
              "type": "string"
             },
             "name": {
              "type": "string"
             },
             "provider": {
              "type": "string"
             }
            },
            "type": "object"
           },
           "LogEntry": {
            "properties": {
             "host": {
              "type": "string"
             },
             "index": {
              "type": "integer"
             },
             "method": {
              "type": "string"
             },
             "outcome": {
              "type": "string"
             },
             "path": {
              "type": "string"
             },
             "receivedAt": {
              "format": "date-time",
              "type": "string"
             },
             "status": {
              "type": [
               "integer",
               "null"
              ]
             }
            },
            "type": "object"
           },
           "Message": {
            "properties": {
             "channel": {
              "type": "string"
             },
             "code": {
              "type": [
               "string",
               "null"
              ]
             },
             "destination": {
              "type": "string"
             },
             "host": {
              "type": "string"
             },
             "id": {
              "type": "integer"
             },
             "link": {
              "type": [
               "string",
               "null"
              ]
             },
             "sentAt": {
              "format": "date-time",
              "type": "string"
             },
             "status": {
              "enum": [
               "sent",
               "delivered",
               "read",
               "failed"
              ]
             },
             "statusChangedAt": {
              "format": "date-time",
              "type": "string"
             }
            },
            "type": "object"
           },
           "ResetRequest": {
            "properties": {
             "clock": {
              "oneOf": [
               {
                "const": "realTime"
               },
               {
                "properties": {
                 "start": {
                  "type": "number"
                 }
                },
                "type": "object"
               }
              ]
             },
             "otpless": {
              "properties": {
               "emailAuthType": {
                "enum": [
                 "OTP",
                 "MAGICLINK",
                 "OTP_LINK"
                ]
               },
               "emailEnabled": {
                "type": "boolean"
               },
               "fallbackDelaySeconds": {
                "type": "number"
               },
               "phoneAuthType": {
                "enum": [
                 "OTP",
                 "MAGICLINK",
                 "OTP_LINK"
                ]
               },
               "phoneChannels": {
                "items": {
                 "type": "string"
                },
                "type": "array"
               },
               "silentAuthEnabled": {
                "type": "boolean"
               }
              },
              "type": "object"
             },
             "seed": {
              "oneOf": [
               {
                "type": "integer"
               },
               {
                "type": "string"
               }
              ]
             }
            },
            "type": "object"
           },
           "ScenarioRequest": {
            "properties": {
             "deviceID": {
              "description": "verifiedBefore: the app's Truecaller deviceID (default sandbox-device)",
              "type": "string"
             },
             "firstName": {
              "type": "string"
             },
             "lastName": {
              "type": "string"
             },
             "scenario": {
              "enum": [
               "delivered",
               "whatsappFails",
               "neverDelivered",
               "blocked",
               "rateLimited",
               "verifiedBefore",
               "silentAuthFails"
              ]
             }
            },
            "required": [
             "scenario"
            ],
            "type": "object"
           },
           "State": {
            "properties": {
             "clock": {
              "$ref": "#/components/schemas/Clock"
             },
             "codes": {
              "type": "object"
             },
             "connections": {
              "type": "integer"
             },
             "faults": {
              "items": {
               "$ref": "#/components/schemas/Fault"
              },
              "type": "array"
             },
             "flows": {
              "items": {
               "type": "object"
              },
              "type": "array"
             },
             "hosts": {
              "items": {
               "$ref": "#/components/schemas/Host"
              },
              "type": "array"
             },
             "inbox": {
              "items": {
               "$ref": "#/components/schemas/Message"
              },
              "type": "array"
             },
             "requestCount": {
              "type": "integer"
             },
             "requests": {
              "items": {
               "$ref": "#/components/schemas/LogEntry"
              },
              "type": "array"
             },
             "scenarios": {
              "items": {
               "type": "object"
              },
              "type": "array"
             },
             "seed": {
              "type": "string"
             },
             "sessions": {
              "items": {
               "type": "object"
              },
              "type": "array"
             }
            },
            "type": "object"
           }
          }
         },
         "info": {
          "description": "The control API of `multiauth serve` (Docs/Emulator.md). The emulated backends themselves are served under /<host>/\u2026 with their providers' own wire formats and are not described here.",
          "title": "MultiAuth sandbox server control API",
          "version": "1"
         },
         "openapi": "3.1.0",
         "paths": {
          "/_multiauth": {
           "get": {
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "The index"
             }
            },
            "summary": "Index: version, hosts, clock"
           }
          },
          "/_multiauth/clock": {
           "get": {
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Clock"
                }
               }
              },
              "description": "The clock"
             }
            },
            "summary": "The backends' clock"
           },
           "put": {
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "properties": {
                 "elapsed": {
                  "$ref": "#/components/schemas/Duration"
                 },
                 "now": {
                  "oneOf": [
                   {
                    "type": "number"
                   },
                   {
                    "format": "date-time",
                    "type": "string"
                   }
                  ]
                 }
                },
                "type": "object"
               }
              }
             },
             "required": true
            },
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Clock"
                }
               }
              },
              "description": "The clock"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             },
             "409": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "Set the manual clock forward to `now` (Unix seconds or ISO 8601) or to an exact `elapsed` since its start"
           }
          },
          "/_multiauth/clock/advance": {
           "post": {
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "properties": {
                 "seconds": {
                  "minimum": 0,
                  "type": "number"
                 }
                },
                "required": [
                 "seconds"
                ],
                "type": "object"
               }
              }
             },
             "required": true
            },
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Clock"
                }
               }
              },
              "description": "The clock"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             },
             "409": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "Advance the manual clock; sleeping latency faults and expiries follow"
           }
          },
          "/_multiauth/codes": {
           "get": {
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "properties": {
                  "codes": {
                   "additionalProperties": {
                    "type": "string"
                   },
                   "type": "object"
                  }
                 },
                 "type": "object"
                }
               }
              },
              "description": "Codes"
             }
            },
            "summary": "The fixed one-time codes per destination"
           }
          },
          "/_multiauth/codes/{destination}": {
           "delete": {
            "parameters": [
             {
              "description": "An E.164 number (+919876543210) or an e-mail address",
              "in": "path",
              "name": "destination",
              "required": true,
              "schema": {
               "type": "string"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "Codes"
             }
            },
            "summary": "Remove the destination's fixed code"
           },
           "put": {
            "parameters": [
             {
              "description": "An E.164 number (+919876543210) or an e-mail address",
              "in": "path",
              "name": "destination",
              "required": true,
              "schema": {
               "type": "string"
              }
             }
            ],
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "properties": {
                 "code": {
                  "pattern": "^[0-9]{4,10}$",
                  "type": "string"
                 }
                },
                "required": [
                 "code"
                ],
                "type": "object"
               }
              }
             },
             "required": true
            },
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "Codes"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "Fix the one-time code sent to a destination (4 to 10 digits, used when the flow asks for that length)"
           }
          },
          "/_multiauth/faults": {
           "delete": {
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "No faults"
             }
            },
            "summary": "Remove every rule and clock offset"
           },
           "get": {
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "properties": {
                  "faults": {
                   "items": {
                    "$ref": "#/components/schemas/Fault"
                   },
                   "type": "array"
                  }
                 },
                 "type": "object"
                }
               }
              },
              "description": "Faults"
             }
            },
            "summary": "The active fault rules and clock offsets"
           },
           "post": {
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/FaultRequest"
               }
              }
             },
             "required": true
            },
            "responses": {
             "201": {
              "content": {
               "application/json": {
                "schema": {
                 "properties": {
                  "faults": {
                   "items": {
                    "$ref": "#/components/schemas/Fault"
                   },
                   "type": "array"
                  },
                  "id": {
                   "type": "string"
                  }
                 },
                 "type": "object"
                }
               }
              },
              "description": "The rule's id and the active rules"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "Install a fault rule"
           }
          },
          "/_multiauth/faults/clock-offset": {
           "put": {
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "properties": {
                 "host": {
                  "type": "string"
                 },
                 "offset": {
                  "$ref": "#/components/schemas/Duration"
                 },
                 "seconds": {
                  "type": "number"
                 }
                },
                "type": "object"
               }
              }
             },
             "required": true
            },
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "The faults"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "Set how far a backend's clock is ahead (negative: behind) of the sandbox clock"
           }
          },
          "/_multiauth/faults/{id}": {
           "delete": {
            "parameters": [
             {
              "in": "path",
              "name": "id",
              "required": true,
              "schema": {
               "type": "string"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "The remaining rules"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "Remove one rule"
           }
          },
          "/_multiauth/hosts": {
           "get": {
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "properties": {
                  "hosts": {
                   "items": {
                    "$ref": "#/components/schemas/Host"
                   },
                   "type": "array"
                  }
                 },
                 "type": "object"
                }
               }
              },
              "description": "Hosts"
             }
            },
            "summary": "The emulated backends, their hosts and base URLs on this server"
           }
          },
          "/_multiauth/inbox": {
           "get": {
            "parameters": [
             {
              "description": "Only messages with a larger id",
              "in": "query",
              "name": "after",
              "schema": {
               "minimum": 0,
               "type": "integer"
              }
             },
             {
              "description": "sms, whatsapp, email, voice",
              "in": "query",
              "name": "channel",
              "schema": {
               "type": "string"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "properties": {
                  "messages": {
                   "items": {
                    "$ref": "#/components/schemas/Message"
                   },
                   "type": "array"
                  }
                 },
                 "type": "object"
                }
               }
              },
              "description": "Messages"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "Every message the backends sent (codes, links, hand-off URLs)"
           }
          },
          "/_multiauth/inbox/{destination}": {
           "get": {
            "parameters": [
             {
              "description": "An E.164 number (+919876543210) or an e-mail address",
              "in": "path",
              "name": "destination",
              "required": true,
              "schema": {
               "type": "string"
              }
             },
             {
              "in": "query",
              "name": "after",
              "schema": {
               "minimum": 0,
               "type": "integer"
              }
             },
             {
              "in": "query",
              "name": "channel",
              "schema": {
               "type": "string"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "properties": {
                  "destination": {
                   "type": "string"
                  },
                  "latest": {
                   "oneOf": [
                    {
                     "$ref": "#/components/schemas/Message"
                    },
                    {
                     "type": "null"
                    }
                   ]
                  },
                  "messages": {
                   "items": {
                    "$ref": "#/components/schemas/Message"
                   },
                   "type": "array"
                  }
                 },
                 "type": "object"
                }
               }
              },
              "description": "Messages"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "The messages to one destination and the newest delivered one"
           }
          },
          "/_multiauth/inbox/{destination}/next": {
           "get": {
            "parameters": [
             {
              "description": "An E.164 number (+919876543210) or an e-mail address",
              "in": "path",
              "name": "destination",
              "required": true,
              "schema": {
               "type": "string"
              }
             },
             {
              "in": "query",
              "name": "after",
              "schema": {
               "default": 0,
               "minimum": 0,
               "type": "integer"
              }
             },
             {
              "in": "query",
              "name": "timeout",
              "schema": {
               "default": 30,
               "maximum": 60,
               "minimum": 0,
               "type": "number"
              }
             },
             {
              "in": "query",
              "name": "channel",
              "schema": {
               "type": "string"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Message"
                }
               }
              },
              "description": "The message"
             },
             "204": {
              "description": "No message arrived in time (or the server was reset)"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "Long-poll: the first delivered message to the destination with an id above `after`, waiting up to `timeout` seconds"
           }
          },
          "/_multiauth/openapi.json": {
           "get": {
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "OpenAPI 3.1"
             }
            },
            "summary": "This document"
           }
          },
          "/_multiauth/requests": {
           "get": {
            "parameters": [
             {
              "in": "query",
              "name": "after",
              "schema": {
               "minimum": 0,
               "type": "integer"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "properties": {
                  "requests": {
                   "items": {
                    "$ref": "#/components/schemas/LogEntry"
                   },
                   "type": "array"
                  }
                 },
                 "type": "object"
                }
               }
              },
              "description": "Requests"
             }
            },
            "summary": "The request log, redacted (no query, header value, body or credential-like path segment)"
           }
          },
          "/_multiauth/reset": {
           "post": {
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/ResetRequest"
               }
              }
             },
             "required": false
            },
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "The new world's seed and clock"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "Replace the world: inbox, flows, sessions, faults, scenarios, codes and log start empty; the signing key stays"
           }
          },
          "/_multiauth/scenarios": {
           "get": {
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "Scenarios"
             }
            },
            "summary": "The scenarios per destination and the available ones"
           }
          },
          "/_multiauth/scenarios/{destination}": {
           "delete": {
            "parameters": [
             {
              "description": "An E.164 number (+919876543210) or an e-mail address",
              "in": "path",
              "name": "destination",
              "required": true,
              "schema": {
               "type": "string"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "Scenarios"
             }
            },
            "summary": "Clear the destination's scenarios"
           },
           "put": {
            "parameters": [
             {
              "description": "An E.164 number (+919876543210) or an e-mail address",
              "in": "path",
              "name": "destination",
              "required": true,
              "schema": {
               "type": "string"
              }
             }
            ],
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/ScenarioRequest"
               }
              }
             },
             "required": true
            },
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "Scenarios"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "Add a scenario for a phone number or e-mail address (`delivered` clears)"
           }
          },
          "/_multiauth/sessions": {
           "post": {
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "properties": {
                 "firstName": {
                  "type": "string"
                 },
                 "identity": {
                  "type": "string"
                 },
                 "lastName": {
                  "type": "string"
                 },
                 "provider": {
                  "enum": [
                   "dynamic",
                   "truecaller",
                   "portal",
                   "otpless"
                  ]
                 }
                },
                "required": [
                 "provider",
                 "identity"
                ],
                "type": "object"
               }
              }
             },
             "required": true
            },
            "responses": {
             "201": {
              "content": {
               "application/json": {
                "schema": {
                 "type": "object"
                }
               }
              },
              "description": "The session as AuthSession encodes it (the app stores it in its session store)"
             },
             "400": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             },
             "501": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "A refusal: what to fix"
             }
            },
            "summary": "Issue a signed-in session directly (a real sign-in run against the world), for \"already signed in\" UI tests"
           }
          },
          "/_multiauth/state": {
           "get": {
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/State"
                }
               }
              },
              "description": "The state"
             }
            },
            "summary": "Everything the inspector shows: clock, inbox (newest 200), pending flows, issued sessions, redacted request log (newest 100), faults, scenarios, fixed codes"
           }
          },
          "/_multiauth/totp": {
           "get": {
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "properties": {
                  "totp": {
                   "additionalProperties": {
                    "properties": {
                     "code": {
                      "description": "the code at the server's time",
                      "type": "string"
                     },
                     "digits": {
                      "type": "integer"
                     },
                     "period": {
                      "type": "integer"
                     },
                     "secret": {
                      "description": "base32",
                      "type": "string"
                     }
                    },
                    "type": "object"
                   },
                   "type": "object"
                  }
                 },
                 "type": "object"
                }
               }
              },
              "description": "By e-mail"
             }
            },
            "summary": "Every Portal user's TOTP secret and current code (what their authenticator app shows)"
           }
          },
          "/_multiauth/totp/{email}": {
           "get": {
            "parameters": [
             {
              "in": "path",
              "name": "email",
              "required": true,
              "schema": {
               "type": "string"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "properties": {
                  "code": {
                   "description": "the code at the server's time",
                   "type": "string"
                  },
                  "digits": {
                   "type": "integer"
                  },
                  "period": {
                   "type": "integer"
                  },
                  "secret": {
                   "description": "base32",
                   "type": "string"
                  }
                 },
                 "type": "object"
                }
               }
              },
              "description": "The secret and code"
             },
             "404": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Error"
                }
               }
              },
              "description": "No secret enrolled yet"
             }
            },
            "summary": "One Portal user's TOTP secret and current code"
           }
          }
         },
         "servers": [
          {
           "url": "/"
          }
         ]
        }
        """#
}
